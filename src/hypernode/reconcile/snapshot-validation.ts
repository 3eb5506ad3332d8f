// Checks one source's snapshot of desired HyperNodes before anything is
// written: a snapshot that breaks one of these rules would be rejected by the
// API server object by object (leaving a half-applied topology), or accepted
// and then misread by Volcano's scheduler. Pure: the offline `render` applies
// it to every source's snapshot, and a reconciler can apply it to each
// snapshot it receives and refuse the whole snapshot on a violation.
//
// The rules and why:
// - a HyperNode-type member must use exactMatch: the scheduler builds the
//   HyperNode tree only from exact names (volcano pkg/scheduler/api/hyper_node_info.go);
// - no cycles and at most one parent per HyperNode: the scheduler needs a
//   forest to find a job's lowest common HyperNode;
// - a parent's tier is above its children's: tiers are the levels of that forest;
// - names are DNS-1123 subdomains, label keys qualified names, label values
//   valid label values: what the API server's object-meta validation demands;
// - each object serializes to under 1 MiB, well inside etcd's request limit.

import type { DiscoveredHyperNode } from '../model/hypernode-types.ts';
import type { SnapshotRule } from '../hypernode-metrics.ts';
import { compareBytes } from '../../util/compare-bytes.ts';
import {
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  isDNS1123Subdomain,
  isLabelValue,
  isQualifiedName,
  LABEL_VALUE_MAX_LENGTH,
} from '../../kube/name-validation.ts';

/** Largest accepted JSON form of one HyperNode, in bytes. */
export const MAX_OBJECT_BYTES = 1024 * 1024;

export interface SnapshotViolation {
  readonly rule: SnapshotRule;
  /** The HyperNodes involved, by name. */
  readonly objects: readonly string[];
  readonly message: string;
}

/** Every rule broken by `snapshot`, in a stable order; empty when it may be written. */
export function validateSnapshot(snapshot: readonly DiscoveredHyperNode[]): SnapshotViolation[] {
  const byName = new Map(snapshot.map((hn) => [hn.metadata.name, hn]));
  const violations: SnapshotViolation[] = [];
  for (const hn of snapshot) violations.push(...objectViolations(hn));
  const parents = parentsOf(snapshot, byName);
  for (const [child, of] of parents) {
    if (of.length > 1) {
      violations.push({
        rule: 'parents',
        objects: [child, ...of],
        message: `HyperNode ${child} is a member of ${of.length} HyperNodes (${of.join(', ')}); a HyperNode has at most one parent`,
      });
    }
    const childTier = byName.get(child)!.spec.tier;
    for (const parent of of) {
      const parentTier = byName.get(parent)!.spec.tier;
      if (!(parentTier > childTier)) {
        violations.push({
          rule: 'tier-order',
          objects: [parent, child],
          message: `HyperNode ${parent} (tier ${parentTier}) has member ${child} (tier ${childTier}); a parent's tier must be above its children's`,
        });
      }
    }
  }
  for (const cycle of cycles(byName)) {
    violations.push({
      rule: 'cycle',
      objects: cycle,
      message: `HyperNodes form a cycle: ${[...cycle, cycle[0]].join(' → ')}`,
    });
  }
  return violations;
}

/** One line per violation, for an error message or an Event. */
export function describeViolations(violations: readonly SnapshotViolation[]): string {
  return violations.map((v) => `${v.rule}: ${v.message}`).join('\n');
}

function objectViolations(hn: DiscoveredHyperNode): SnapshotViolation[] {
  const name = hn.metadata.name;
  const out: SnapshotViolation[] = [];
  if (!isDNS1123Subdomain(name)) {
    out.push({
      rule: 'name',
      objects: [name],
      message: `HyperNode name ${JSON.stringify(name)} is not a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', at most ${DNS1123_SUBDOMAIN_MAX_LENGTH} characters)`,
    });
  }
  for (const [key, value] of Object.entries(hn.metadata.labels ?? {})) {
    if (!isQualifiedName(key))
      out.push({
        rule: 'label',
        objects: [name],
        message: `HyperNode ${name}: label key ${JSON.stringify(key)} is not a valid label key`,
      });
    if (!isLabelValue(value)) {
      out.push({
        rule: 'label',
        objects: [name],
        message: `HyperNode ${name}: label ${key} has value ${JSON.stringify(value)}, which is not a valid label value (at most ${LABEL_VALUE_MAX_LENGTH} characters, alphanumeric at both ends)`,
      });
    }
  }
  for (const [i, member] of (hn.spec.members ?? []).entries()) {
    if (member.type === 'HyperNode' && !member.selector?.exactMatch?.name) {
      out.push({
        rule: 'member-selector',
        objects: [name],
        message: `HyperNode ${name}: members[${i}] is a HyperNode member without exactMatch; the scheduler resolves HyperNode members only by exact name`,
      });
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(hn));
  if (bytes >= MAX_OBJECT_BYTES)
    out.push({
      rule: 'size',
      objects: [name],
      message: `HyperNode ${name} serializes to ${bytes} bytes; the limit is ${MAX_OBJECT_BYTES}`,
    });
  return out;
}

/** Exact names of the HyperNode members that are part of the snapshot. */
function childrenOf(hn: DiscoveredHyperNode, byName: ReadonlyMap<string, DiscoveredHyperNode>): string[] {
  const names: string[] = [];
  for (const m of hn.spec.members ?? []) {
    const child = m.type === 'HyperNode' ? m.selector.exactMatch?.name : undefined;
    if (child !== undefined && byName.has(child) && !names.includes(child)) names.push(child);
  }
  return names;
}

/** Child name → its parents' names (byte-sorted), for children in the snapshot. */
function parentsOf(
  snapshot: readonly DiscoveredHyperNode[],
  byName: ReadonlyMap<string, DiscoveredHyperNode>,
): Map<string, string[]> {
  const parents = new Map<string, string[]>();
  for (const hn of snapshot) {
    for (const child of childrenOf(hn, byName)) {
      const of = parents.get(child);
      if (of) of.push(hn.metadata.name);
      else parents.set(child, [hn.metadata.name]);
    }
  }
  for (const of of parents.values()) of.sort(compareBytes);
  return new Map([...parents].sort(([a], [b]) => compareBytes(a, b)));
}

/** Each cycle of the member graph once, as the names along it (depth-first, iterative). */
function cycles(byName: ReadonlyMap<string, DiscoveredHyperNode>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const found: string[][] = [];
  for (const start of [...byName.keys()].sort(compareBytes)) {
    if (state.has(start)) continue;
    const path: string[] = [];
    const stack: Array<{ name: string; next: string[] }> = [];
    const enter = (name: string) => {
      state.set(name, 'open');
      path.push(name);
      stack.push({ name, next: childrenOf(byName.get(name)!, byName) });
    };
    enter(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const child = top.next.shift();
      if (child === undefined) {
        state.set(top.name, 'done');
        stack.pop();
        path.pop();
      } else if (state.get(child) === 'open') {
        found.push(path.slice(path.indexOf(child)));
      } else if (!state.has(child)) {
        enter(child);
      }
    }
  }
  return found;
}
