// How `plan` prints a Plan: for people, per source, `+` create, `~` update
// with one line per changed field, `-` delete (`(held)` when the mass-delete
// guard holds it), and the `Plan: …` summary; or the same as one JSON document.

import type { MemberSpec } from '../hypernode/model/hypernode-types.ts';
import { describeDiff, describeMember } from '../hypernode/reconcile/hypernode-diff.ts';
import type { Plan, PlanAction, PlannedChange } from '../hypernode/preview/cluster-plan.ts';

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
}

export function summarize(plan: Plan): PlanSummary {
  const count = (action: PlanAction, held = false) => plan.changes.filter((c) => c.action === action && (c.held ?? false) === held).length;
  return { create: count('create'), update: count('update'), delete: count('delete'), held: count('delete', true) };
}

export function formatPlanJson(plan: Plan): string {
  return `${JSON.stringify({ changes: plan.changes, warnings: plan.warnings, summary: summarize(plan) }, null, 2)}\n`;
}

export function formatPlanText(plan: Plan, style: PlanStyle = PLAIN): string {
  const lines: string[] = [];
  let source: string | undefined;
  for (const change of plan.changes) {
    if (change.source !== source) {
      source = change.source;
      lines.push(source === '' ? 'HyperNodes without a discovery source (nodeCount only):' : `source "${source}":`);
    }
    lines.push(`  ${style.marker(change.action, MARKERS[change.action])} ${change.name}${change.held ? ' (held)' : ''}`, ...details(change).map((d) => `${DETAIL_INDENT}${d}`));
  }
  if (plan.changes.length === 0) lines.push('No changes: the HyperNodes match what the enabled discovery sources describe.');
  lines.push('', `Plan: ${planHeadline(plan)}.`);
  return `${lines.join('\n')}\n`;
}

/** `1 to create, 2 to update, 0 to delete` (`, 3 held` when the guard holds deletes). */
export function planHeadline(plan: Plan): string {
  const s = summarize(plan);
  return `${s.create} to create, ${s.update} to update, ${s.delete} to delete${s.held > 0 ? `, ${s.held} held` : ''}`;
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
