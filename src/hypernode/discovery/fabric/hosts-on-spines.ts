// A switch with hosts is a leaf (fabric-levels.ts), so hosts cabled straight
// to a spine (storage servers, the subnet manager's host, a Node cabled to
// the wrong switch) turn that spine into a leaf: it no longer groups the
// leaves below it, and with no other spine the spine tier is gone. Every
// fabric source reports that shape, with the change that places the hosts;
// the tree is built as cabled.

import { compareBytes } from '../../../util/compare-bytes.ts';
import { firstFew } from '../../../util/first-few.ts';
import type { FabricLink } from './fabric-graph.ts';

/** Hosts named in a report about a switch; the count says how many there are. */
const HOSTS_NAMED = 3;

/**
 * The switches of `links` that carry hosts and are cabled to two or more other switches with hosts that are not cabled
 * to each other, each as a message naming it (by `names`, switch id → name), its hosts and those leaves. That tells a
 * spine with hosts apart from leaves cabled to each other (an MLAG pair, whose peers are few and cabled together); it
 * is only reported (a ring of leaves looks the same).
 */
export function hostsOnSpines(links: readonly FabricLink[], names: ReadonlyMap<string, string>): string[] {
  const hostsOf = new Map<string, Set<string>>();
  const peersOf = new Map<string, Set<string>>();
  const add = (m: Map<string, Set<string>>, k: string, v: string) => (m.get(k) ?? m.set(k, new Set()).get(k)!).add(v);
  for (const { a, b } of links) {
    const [sw, other] = a.kind === 'switch' ? [a, b] : [b, a];
    if (sw.kind !== 'switch') continue;
    if (other.kind === 'host') add(hostsOf, sw.id, other.name);
    else if (other.id !== sw.id) {
      add(peersOf, sw.id, other.id);
      add(peersOf, other.id, sw.id);
    }
  }
  const out: string[] = [];
  for (const [sw, hosts] of hostsOf) {
    const leaves = [...(peersOf.get(sw) ?? [])].filter((p) => hostsOf.has(p)).sort(compareBytes);
    if (leaves.length < 2 || leaves.some((x, i) => leaves.slice(i + 1).some((y) => peersOf.get(x)!.has(y)))) continue;
    const named = firstFew([...hosts].sort(compareBytes), HOSTS_NAMED);
    out.push(
      `switch ${names.get(sw) ?? sw} is cabled to hosts (${named}) and to ${leaves.length} switches cabled to hosts (${leaves.map((l) => names.get(l) ?? l).join(', ')}): it counts as a leaf, so no tier sits over them; if it is a spine, cable its hosts to leaves`,
    );
  }
  return out;
}
