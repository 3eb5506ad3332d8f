// Which Nodes carry the fabric taint (health.taint, docs/health.md "Node
// taint"): a Node whose links on a source's fabrics are all missing, at that
// source's last accepted poll, for at least `after` gets it; it goes once a
// poll of the source that named it shows a link, once that source is off, or
// once health.taint is off. A Node with a link left is never tainted. No
// source says anything of a Node it no longer knows (a restart's first poll,
// a link the memory forgot): its taint stays. One fabric answer never taints
// more than health.maxTaintPercent of the Nodes its source connects: past it
// nothing new is tainted and the taints already there stay. Pure, so the
// taint writer and `plan` decide alike. Ours, no Go counterpart.

import { isKubernetesReservedKey, isLabelValue, isQualifiedName } from '../../../kube/name-validation.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { TAINT_EFFECTS, type HealthSettings } from '../../config/health-config.ts';
import type { HostLinkReport, NodeTaint } from '../../model/contracts.ts';
import { SOURCE_KEYS } from '../../model/hypernode-labels.ts';

/** The taint this controller holds on a Node, as its record (FABRIC_TAINT_ANNOTATION) says. */
export interface FabricTaint {
  readonly key: string;
  /** `<source>.<fabric>`: what the Node is cut off from. */
  readonly value: string;
  readonly effect: string;
}

/** `key=value:effect`, as `kubectl taint` writes a taint: the record's text. */
export const formatFabricTaint = (t: FabricTaint): string => `${t.key}=${t.value}:${t.effect}`;

/**
 * The record's text read back; undefined unless it is a taint this
 * controller could have set: `key=value:effect` with a key outside the
 * Kubernetes prefixes, a value naming a source, and an effect it writes. A
 * record anyone may edit so never makes it take another writer's taint for
 * its own (the lifecycle controller's `node.kubernetes.io/unreachable`, say).
 */
export function parseFabricTaint(text: string | undefined): FabricTaint | undefined {
  if (text === undefined) return undefined;
  const eq = text.indexOf('=');
  const colon = text.lastIndexOf(':');
  if (eq <= 0 || colon < eq) return undefined;
  const t = { key: text.slice(0, eq), value: text.slice(eq + 1, colon), effect: text.slice(colon + 1) };
  const possible =
    isQualifiedName(t.key) &&
    !isKubernetesReservedKey(t.key) &&
    isLabelValue(t.value) &&
    (SOURCE_KEYS as readonly string[]).includes(sourceOfTaintValue(t.value)) &&
    (TAINT_EFFECTS as readonly string[]).includes(t.effect);
  return possible ? t : undefined;
}

/**
 * The taint of ours a Node carries: its record names a taint this controller
 * could have set, and exactly that taint is in its list. A record whose taint
 * is gone (removed by someone, not put back yet) and our key set by another
 * writer without a record are not ours.
 */
export function carriedFabricTaint(record: string | undefined, taints: readonly NodeTaint[]): FabricTaint | undefined {
  const t = parseFabricTaint(record);
  const listed = t && taints.some((x) => x.key === t.key && x.effect === t.effect && (x.value ?? '') === t.value);
  return listed ? t : undefined;
}

/** The taint's value: `<source>.<fabric>`, or the source alone when that is no label value (UFM legacy mode's fabric). */
export function fabricTaintValue(source: string, fabric: string): string {
  const value = `${source}.${fabric}`;
  return isLabelValue(value) ? value : source;
}

/** The source a taint value names. */
export const sourceOfTaintValue = (value: string): string => value.split('.')[0]!;

/** The fabric a taint value names ('' when it names the source alone). */
export const fabricOfTaintValue = (value: string): string => value.split('.').slice(1).join('.');

/** How a Node stands with one source at its last accepted poll of each fabric. */
export type Standing =
  /** Every link of it is missing: since `forMs` before the poll, the last of them on `fabric`. */
  | { readonly kind: 'cutOff'; readonly fabric: string; readonly forMs: number }
  /** A link of it is there. */
  | { readonly kind: 'linked' }
  /** The source knows no link of it. */
  | undefined;

/** A Node's standing with a source, over its fabrics (the planes a host is cabled to). */
export function standingOf(node: string, fabrics: ReadonlyMap<string, HostLinkReport>): Standing {
  let cut: { fabric: string; since: number; forMs: number } | undefined;
  for (const [fabric, report] of fabrics) {
    const links = report.nodes.get(node);
    if (!links || links.links === 0) continue;
    if (links.missing < links.links || links.cutOffSince === undefined) return { kind: 'linked' };
    const forMs = report.at - links.cutOffSince;
    // Judged at each fabric's own poll: a fabric whose later polls failed adds no time.
    if (!cut) cut = { fabric, since: links.cutOffSince, forMs };
    else {
      if (links.cutOffSince > cut.since) [cut.fabric, cut.since] = [fabric, links.cutOffSince];
      cut.forMs = Math.min(cut.forMs, forMs);
    }
  }
  return cut ? { kind: 'cutOff', fabric: cut.fabric, forMs: cut.forMs } : undefined;
}

/** What a taint decision works from. */
export interface TaintInputs {
  readonly settings: HealthSettings;
  /**
   * Every fabric source whose entry is enabled, with its Nodes' links per
   * fabric at its last accepted poll (none yet: an empty map). A source
   * absent is off: the taints naming it go.
   */
  readonly sources: ReadonlyMap<string, ReadonlyMap<string, HostLinkReport>>;
  /** The Nodes (those of no Node object are never written), with the taint their record says they carry. */
  readonly nodes: Iterable<{ readonly name: string; readonly record?: FabricTaint | undefined }>;
}

/** Why a Node's taint changes, for logs, Events and `plan`. */
export type TaintReason = 'cut off' | 'link back' | 'source off' | 'taint off' | 'settings changed';

export interface TaintChange {
  readonly node: string;
  /** The taint of ours it carries now (its record), if any. */
  readonly from?: FabricTaint;
  /** The taint of ours it should carry, if any. */
  readonly to?: FabricTaint;
  readonly reason: TaintReason;
}

/** A source whose new taints the guard holds: nothing new is tainted, the taints already there stay. */
export interface HeldTaints {
  readonly source: string;
  /** The Nodes it would taint, sorted. */
  readonly nodes: readonly string[];
  /** The Nodes its fabrics connect. */
  readonly connected: number;
  /** The Nodes that would carry its taint with them. */
  readonly tainted: number;
  readonly maxTaintPercent: number;
  /** The smallest maxTaintPercent that would let them be tainted. */
  readonly allowedFrom: number;
}

export interface TaintDecision {
  /** By Node name. */
  readonly changes: readonly TaintChange[];
  /** By source name. */
  readonly held: readonly HeldTaints[];
  /** Per source (the one each taint's value names), the Nodes carrying our taint once the changes are made. */
  readonly tainted: ReadonlyMap<string, number>;
}

const sameTaint = (a: FabricTaint | undefined, b: FabricTaint | undefined) =>
  a === b || (a !== undefined && b !== undefined && formatFabricTaint(a) === formatFabricTaint(b));

/** The changes that bring every Node's taint of ours to what the sources say, within the guard. */
export function decideTaints(i: TaintInputs): TaintDecision {
  const { settings, sources } = i;
  const taint = settings.taint;
  const order = [...sources.keys()].sort(compareBytes);
  // Nodes some source sees cut off: the only Nodes without a taint of ours worth a look.
  const cutOff = new Set<string>();
  if (taint)
    for (const fabrics of sources.values())
      for (const report of fabrics.values())
        for (const [node, links] of report.nodes)
          if (links.links > 0 && links.missing === links.links) cutOff.add(node);
  const candidates: TaintChange[] = [];
  const after = new Map<string, string[]>();
  const keep = (node: string, t: FabricTaint | undefined) => {
    if (!t) return;
    const source = sourceOfTaintValue(t.value);
    after.set(source, [...(after.get(source) ?? []), node]);
  };
  for (const { name, record } of i.nodes) {
    if (!record && !cutOff.has(name)) continue;
    const { to, gone } = desiredTaint(name, record, settings, sources, order);
    keep(name, to);
    if (sameTaint(record, to)) continue;
    const reason: TaintReason = !to ? gone : record && record.value === to.value ? 'settings changed' : 'cut off';
    candidates.push({ node: name, ...(record ? { from: record } : {}), ...(to ? { to } : {}), reason });
  }
  // The guard: per source, new taints that would take more than maxTaintPercent of its Nodes are held, all of them.
  const held: HeldTaints[] = [];
  const holding = new Set<string>();
  for (const source of order) {
    const fresh = candidates.filter((c) => !c.from && c.to && sourceOfTaintValue(c.to.value) === source);
    if (fresh.length === 0) continue;
    const connected = connectedNodes(sources.get(source)!);
    const tainted = after.get(source)?.length ?? 0;
    if (!taintGuard(connected, tainted, settings.maxTaintPercent).hold) continue;
    holding.add(source);
    held.push({
      source,
      nodes: fresh.map((c) => c.node).sort(compareBytes),
      connected,
      tainted,
      maxTaintPercent: settings.maxTaintPercent,
      allowedFrom: taintGuard(connected, tainted, settings.maxTaintPercent).allowedFrom,
    });
  }
  const changes = candidates
    .filter((c) => c.from || !c.to || !holding.has(sourceOfTaintValue(c.to.value)))
    .sort((a, b) => compareBytes(a.node, b.node));
  const tainted = new Map<string, number>();
  for (const [source, nodes] of after) {
    const n = holding.has(source) ? nodes.length - held.find((h) => h.source === source)!.nodes.length : nodes.length;
    if (n > 0) tainted.set(source, n);
  }
  return { changes, held, tainted };
}

/** The taint of ours a Node should carry, or why it carries none. */
function desiredTaint(
  node: string,
  record: FabricTaint | undefined,
  settings: HealthSettings,
  sources: TaintInputs['sources'],
  order: readonly string[],
): { to?: FabricTaint; gone: 'link back' | 'source off' | 'taint off' } {
  const taint = settings.taint;
  if (!taint) return { gone: 'taint off' };
  const wanting: { source: string; fabric: string }[] = [];
  for (const source of order) {
    const s = standingOf(node, sources.get(source)!);
    if (s?.kind === 'cutOff' && s.forMs >= taint.afterMs) wanting.push({ source, fabric: s.fabric });
  }
  const held = record ? sourceOfTaintValue(record.value) : undefined;
  const ours = (value: string): FabricTaint => ({ key: taint.key, value, effect: taint.effect });
  if (wanting.length > 0) {
    // A source still naming it keeps its value: a taint is rewritten only when its source no longer wants it.
    const by = wanting.find((w) => w.source === held) ?? wanting[0]!;
    const value = by.source === held ? record!.value : fabricTaintValue(by.source, by.fabric);
    return { to: ours(value), gone: 'link back' };
  }
  if (!record || held === undefined) return { gone: 'link back' };
  if (!sources.has(held)) return { gone: 'source off' };
  if (standingOf(node, sources.get(held)!)?.kind === 'linked') return { gone: 'link back' };
  // Nothing says it is back: the taint stays, as the settings now write it.
  return { to: ours(record.value), gone: 'link back' };
}

/** The Nodes a source's fabrics connect: those with a link at its last poll of any fabric, present or missing. */
function connectedNodes(fabrics: ReadonlyMap<string, HostLinkReport>): number {
  const nodes = new Set<string>();
  for (const report of fabrics.values()) for (const [node, links] of report.nodes) if (links.links > 0) nodes.add(node);
  return nodes.size;
}

export interface TaintGuardDecision {
  readonly hold: boolean;
  /** `tainted` as a percentage of `connected`. */
  readonly percent: number;
  /** The smallest maxTaintPercent that would allow it. */
  readonly allowedFrom: number;
}

/**
 * Whether `tainted` of the `connected` Nodes of a source may carry the taint:
 * at most maxTaintPercent of them; one Node always may (a host that lost its
 * links alone is the case the taint is for, also in a small cluster), unless
 * maxTaintPercent is 0.
 */
export function taintGuard(connected: number, tainted: number, maxTaintPercent: number): TaintGuardDecision {
  const percent = connected > 0 ? (tainted * 100) / connected : 100;
  const alone = tainted === 1 && maxTaintPercent > 0;
  // Integer arithmetic for the comparison, as the delete guard's.
  const hold = tainted > 0 && !alone && tainted * 100 > connected * maxTaintPercent;
  return { hold, percent, allowedFrom: Math.min(100, Math.ceil(percent)) };
}

/** What is held and how to allow it: one text for the log, the Event and `plan`'s warnings. */
export function heldTaintsMessage(h: HeldTaints): string {
  const percent = `${Number(((h.tainted * 100) / Math.max(h.connected, 1)).toFixed(1))}%`;
  const more = h.nodes.length === 1 ? '1 more Node' : `${h.nodes.length} more Nodes`;
  return (
    `Fabric source "${h.source}" would taint ${more} cut off from its fabric, ${h.tainted} of the ${h.connected} Nodes its fabrics connect (${percent}), ` +
    `more than health.maxTaintPercent of ${h.maxTaintPercent}, so nothing new is tainted and the taints already set stay; ` +
    `if the hosts are cut off indeed, set health.maxTaintPercent to ${h.allowedFrom} or more`
  );
}

/** Why a taint goes, as a message says it. */
export function describeReason(reason: TaintChange['reason']): string {
  switch (reason) {
    case 'link back':
      return 'a link is back';
    case 'source off':
      return 'the source that set it is off';
    case 'taint off':
      return 'health.taint is off';
    default:
      return reason;
  }
}
