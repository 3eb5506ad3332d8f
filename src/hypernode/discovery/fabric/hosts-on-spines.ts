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
 * is only reported (a ring of leaves looks the same). A few passes over the links, each doing little more for a fabric
 * cabled as designed, where no two switches with hosts are cabled together: 10^5 links cost a few milliseconds.
 */
export function hostsOnSpines(links: readonly FabricLink[], names: ReadonlyMap<string, string>): string[] {
  /** The switch a host's link reaches, or undefined for a link between switches or hosts. */
  const switchOfHost = ({ a, b }: FabricLink) =>
    a.kind === 'switch' ? (b.kind === 'host' ? a.id : undefined) : b.kind === 'switch' ? b.id : undefined;
  const withHosts = new Set<string>();
  for (const l of links) {
    const sw = switchOfHost(l);
    if (sw !== undefined) withHosts.add(sw);
  }
  const peersOf = new Map<string, Set<string>>();
  const add = (k: string, v: string) => (peersOf.get(k) ?? peersOf.set(k, new Set()).get(k)!).add(v);
  for (const { a, b } of links) {
    if (a.kind !== 'switch' || b.kind !== 'switch' || a.id === b.id) continue;
    if (!withHosts.has(a.id) || !withHosts.has(b.id)) continue;
    add(a.id, b.id);
    add(b.id, a.id);
  }
  const spines = [...peersOf]
    .filter(([, peers]) => {
      const leaves = [...peers];
      return leaves.length >= 2 && !leaves.some((x, i) => leaves.slice(i + 1).some((y) => peersOf.get(x)!.has(y)));
    })
    .map(([sw]) => sw)
    .sort(compareBytes);
  if (spines.length === 0) return [];
  const hostsOf = new Map(spines.map((sw) => [sw, new Set<string>()]));
  for (const l of links) {
    const sw = switchOfHost(l);
    const hosts = sw === undefined ? undefined : hostsOf.get(sw);
    if (hosts) hosts.add(l.a.kind === 'host' ? l.a.name : (l.b as { name: string }).name);
  }
  return spines.map((sw) => {
    const leaves = [...peersOf.get(sw)!].sort(compareBytes);
    const named = firstFew([...hostsOf.get(sw)!].sort(compareBytes), HOSTS_NAMED);
    return `switch ${names.get(sw) ?? sw} is cabled to hosts (${named}) and to ${leaves.length} switches cabled to hosts (${leaves.map((l) => names.get(l) ?? l).join(', ')}): it counts as a leaf, so no tier sits over them; if it is a spine, cable its hosts to leaves`;
  });
}
