// How `plan` prints a Plan: for people, per source, `+` create, `~` update
// with one line per changed field, `-` delete (`(held)` when the mass-delete
// guard holds it), and the `Plan: …` summary; or the same as one JSON document.
// What the text shows of the cluster and the fabrics is escaped for the
// terminal (model/fabric-names.ts); the markers are ours.

import type { MemberSpec } from '../hypernode/model/hypernode-types.ts';
import { describeDiff, describeMember } from '../hypernode/reconcile/hypernode-diff.ts';
import {
  describeLabelHold,
  type Plan,
  type PlanAction,
  type PlannedChange,
} from '../hypernode/preview/cluster-plan.ts';
import { describeReason, formatFabricTaint, type TaintChange } from '../hypernode/reconcile/health/fabric-taints.ts';
import { describeLevels } from '../hypernode/exports/topology-objects/topology-object-specs.ts';
import { terminalText } from '../hypernode/model/fabric-names.ts';

export interface PlanStyle {
  marker(action: PlanAction, text: string): string;
}

const PLAIN: PlanStyle = { marker: (_action, text) => text };
const MARKERS: Readonly<Record<PlanAction, string>> = { create: '+', update: '~', delete: '-' };
const DETAIL_INDENT = '      ';

export interface PlanSummary {
  readonly create: number;
  readonly update: number;
  /** Deletes the controller would send. */
  readonly delete: number;
  /** Deletes the mass-delete guard would hold. */
  readonly held: number;
  /** Present when Node labels change: Nodes to patch, labels set and removed, Nodes whose removals are held. */
  readonly nodeLabels?: {
    readonly nodes: number;
    readonly set: number;
    readonly removed: number;
    readonly held: number;
  };
  /**
   * Present when Kueue or KAI Topology objects change: a replace is a delete and a create (levels are immutable), an
   * update changes aliases.
   */
  readonly topologies?: {
    readonly create: number;
    readonly replace: number;
    readonly update: number;
    readonly delete: number;
    readonly held: number;
  };
  /** Present when the label memory keeps Nodes in place: they move when their grace periods end. */
  readonly labelHolds?: number;
  /** Present when fabric taints change: Nodes tainted, rewritten (a new key, value or effect) and untainted. */
  readonly taints?: { readonly add: number; readonly change: number; readonly remove: number };
}

export function summarize(plan: Plan): PlanSummary {
  const count = (action: PlanAction, held = false) =>
    plan.changes.filter((c) => c.action === action && (c.held ?? false) === held).length;
  const labels = plan.nodeLabels;
  const nodeLabels =
    labels.length > 0 || plan.nodeLabelsHeld > 0
      ? {
          nodes: labels.length,
          set: labels.reduce((n, c) => n + Object.keys(c.set).length, 0),
          removed: labels.reduce((n, c) => n + c.removed.length, 0),
          held: plan.nodeLabelsHeld,
        }
      : undefined;
  const topo = (action: string) => plan.topologies.filter((t) => t.action === action).length;
  const topologies =
    plan.topologies.length > 0
      ? {
          create: topo('create'),
          replace: topo('replace'),
          update: topo('update'),
          delete: topo('delete'),
          held: topo('held'),
        }
      : undefined;
  return {
    create: count('create'),
    update: count('update'),
    delete: count('delete'),
    held: count('delete', true),
    ...(nodeLabels ? { nodeLabels } : {}),
    ...(topologies ? { topologies } : {}),
    ...(plan.labelHolds.length > 0 ? { labelHolds: plan.labelHolds.length } : {}),
    ...(plan.taints.length > 0
      ? {
          taints: {
            add: plan.taints.filter((t) => !t.from).length,
            change: plan.taints.filter((t) => t.from && t.to).length,
            remove: plan.taints.filter((t) => !t.to).length,
          },
        }
      : {}),
  };
}

export function formatPlanJson(plan: Plan): string {
  const off = plan.nodeLabelsOff.map(({ source, nodes }) => ({ source, nodes }));
  return `${JSON.stringify({ changes: plan.changes, ...(plan.nodeLabels.length > 0 ? { nodeLabels: plan.nodeLabels } : {}), ...(off.length > 0 ? { nodeLabelsOff: off } : {}), ...(plan.topologies.length > 0 ? { topologies: plan.topologies } : {}), ...(plan.labelHolds.length > 0 ? { labelHolds: plan.labelHolds } : {}), ...(plan.taints.length > 0 ? { taints: plan.taints } : {}), warnings: plan.warnings, summary: summarize(plan) }, null, 2)}\n`;
}

export function formatPlanText(plan: Plan, style: PlanStyle = PLAIN): string {
  const lines: string[] = [];
  let source: string | undefined;
  for (const change of plan.changes) {
    if (change.source !== source) {
      source = change.source;
      lines.push(
        source === '' ? 'HyperNodes without a discovery source (nodeCount only):' : `source "${terminalText(source)}":`,
      );
    }
    lines.push(
      `  ${style.marker(change.action, MARKERS[change.action])} ${terminalText(change.name)}${change.held ? ' (held)' : ''}`,
      ...details(change).map((d) => `${DETAIL_INDENT}${terminalText(d)}`),
    );
  }
  if (plan.nodeLabels.length > 0)
    lines.push('Node labels:', ...plan.nodeLabelsOff.map((r) => `  ${terminalText(r.message)}`));
  for (const c of plan.nodeLabels) {
    lines.push(
      `  ${style.marker('update', MARKERS.update)} ${terminalText(c.node)}`,
      ...Object.entries(c.set).map(([k, v]) => `${DETAIL_INDENT}${terminalText(`${k}=${v}`)}`),
      ...c.removed.map((k) => `${DETAIL_INDENT}${terminalText(k)} removed`),
    );
  }
  if (plan.topologies.length > 0) lines.push('Topology objects:');
  for (const t of plan.topologies) {
    const marker =
      t.action === 'create'
        ? style.marker('create', MARKERS.create)
        : t.action === 'delete' || t.action === 'held'
          ? style.marker('delete', MARKERS.delete)
          : t.action === 'update'
            ? style.marker('update', MARKERS.update)
            : style.marker('update', '-/+');
    const detail =
      t.action === 'replace'
        ? `levels ${describeLevels(t.previous!)} -> ${describeLevels(t.levels!)} (levels are immutable: deleted and created)`
        : t.action === 'update'
          ? `levels ${describeLevels(t.previous!)} -> ${describeLevels(t.levels!)} (aliases change in place)`
          : `levels ${describeLevels((t.levels ?? t.previous)!)}`;
    lines.push(
      `  ${marker} ${terminalText(`${t.kind} ${t.name} (source "${t.source}")`)}`,
      `${DETAIL_INDENT}${terminalText(detail)}`,
      ...t.steps.map((step, i) => `${DETAIL_INDENT}${i + 1}. ${terminalText(step)}`),
    );
  }
  if (plan.labelHolds.length > 0)
    lines.push(
      'Nodes kept in place while labels that place them are missing (health.labelGracePeriod):',
      ...plan.labelHolds.map((h) => `  ${style.marker('update', MARKERS.update)} ${describeLabelHold(h)}`),
    );
  if (plan.taints.length > 0)
    lines.push(
      'Node taints (health.taint):',
      ...plan.taints.map(
        (t) => `  ${style.marker(taintAction(t), MARKERS[taintAction(t)])} ${terminalText(describeTaintChange(t))}`,
      ),
    );
  if (
    plan.changes.length === 0 &&
    plan.nodeLabels.length === 0 &&
    plan.topologies.length === 0 &&
    plan.labelHolds.length === 0 &&
    plan.taints.length === 0
  )
    lines.push('No changes: the HyperNodes match what the enabled discovery sources describe.');
  lines.push('', `Plan: ${planHeadline(plan)}.`);
  return `${lines.join('\n')}\n`;
}

/** `1 to create, 2 to update, 0 to delete` (`, 3 held` when the guard holds deletes). */
/** The summary line without its `Plan: ` prefix: HyperNode changes, then Node label patches when there are any. */
export function planHeadline(plan: Plan): string {
  const s = summarize(plan);
  const l = s.nodeLabels;
  const labels = l
    ? `. Node labels: ${l.nodes} Nodes to patch (${l.set} set, ${l.removed} removed${l.held > 0 ? `, ${l.held} Nodes held` : ''})`
    : '';
  const t = s.topologies;
  const topologies = t
    ? `. Topology objects: ${t.create} to create, ${t.replace} to replace, ${t.update > 0 ? `${t.update} to update, ` : ''}${t.delete} to delete${t.held > 0 ? `, ${t.held} being deleted (held)` : ''}`
    : '';
  const holds = s.labelHolds ? `. ${s.labelHolds} Nodes kept in place move when their label grace periods end` : '';
  const tt = s.taints;
  const taints = tt
    ? `. Node taints: ${tt.add} to add, ${tt.change > 0 ? `${tt.change} to change, ` : ''}${tt.remove} to remove`
    : '';
  return `${s.create} to create, ${s.update} to update, ${s.delete} to delete${s.held > 0 ? `, ${s.held} held` : ''}${labels}${topologies}${holds}${taints}`;
}

const taintAction = (t: TaintChange): PlanAction => (!t.from ? 'create' : !t.to ? 'delete' : 'update');

/** `node-1 key=value:effect (why)`; a change shows both taints. */
function describeTaintChange(t: TaintChange): string {
  if (t.from && t.to) return `${t.node} ${formatFabricTaint(t.from)} -> ${formatFabricTaint(t.to)} (${t.reason})`;
  if (t.to) return `${t.node} ${formatFabricTaint(t.to)} (every link of its hosts missing for health.taint.after)`;
  return `${t.node} ${formatFabricTaint(t.from!)} (${describeReason(t.reason)})`;
}

function details(change: PlannedChange): string[] {
  if (change.action === 'update') return describeDiff(change.diff);
  if (change.action === 'delete') return [];
  const hn = change.object!;
  const spec = hn.spec ?? { tier: 0 };
  const members = (spec.members ?? []).map((m: MemberSpec) => describeMember(m));
  const labels = Object.entries(hn.metadata.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  return [
    `tier: ${spec.tier}${spec.tierName ? ` (${spec.tierName})` : ''}`,
    `members: ${members.join(' ')}`,
    `labels: ${labels.join(' ')}`,
    `nodeCount: ${hn.status?.nodeCount ?? 0}`,
  ];
}
