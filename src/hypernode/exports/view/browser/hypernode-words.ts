// How the page speaks of a HyperNode: by what formed its domain (a label
// value, a switch) and its level, the tierName's last segment
// (volcano.sh/hypernode → hypernode); its full name is in the tooltip and the
// side panel. Also the class that colours it: a plan's change, else red for
// a False health condition, else its level's colour.

import type { TopologyView, ViewHyperNode, ViewLevel } from './topology-data.ts';

export interface HyperNodeWords {
  /** The legend's level of a HyperNode. */
  levelOf(h: ViewHyperNode): ViewLevel;
  /** Its level by name: `rack`, `leaf`. */
  kindOf(n: number): string;
  /** What formed its domain, else its name. */
  labelOf(n: number): string;
  /** `rack-1 (hypernode)`. */
  called(n: number): string;
  /** Its tier, source, profile, fabric and nodeCount on one line. */
  meta(h: ViewHyperNode): string;
  /** The class its fill takes. */
  colourClass(h: ViewHyperNode): string;
}

/** The last segment of a tierName: `volcano.sh/hypernode` → `hypernode`. */
export function shortName(tierName: string): string {
  const s = tierName.lastIndexOf('/');
  return s >= 0 && s < tierName.length - 1 ? tierName.slice(s + 1) : tierName;
}

/** `label <key>=<value>` or `switch <id>`; empty when nothing says. */
export function formedBy(h: ViewHyperNode): string {
  if (h.domain === undefined) return '';
  return h.domainLabel !== undefined ? `label ${h.domainLabel}=${h.domain}` : `switch ${h.domain}`;
}

/** `1 Node`, `2 Nodes`. */
export function plural(k: number, word: string): string {
  return `${k} ${word}${k === 1 ? '' : 's'}`;
}

export function hyperNodeWords(data: TopologyView): HyperNodeWords {
  const hns = data.hyperNodes;
  const levels = new Map<string, ViewLevel>();
  for (const l of data.levels) levels.set(l.tierName, l);
  const levelOf = (h: ViewHyperNode) => levels.get(h.tierName !== undefined ? h.tierName : `tier ${h.tier}`)!;
  const kindOf = (n: number) => shortName(levelOf(hns[n]!).tierName);
  const labelOf = (n: number) => hns[n]!.domain ?? hns[n]!.name;
  return {
    levelOf,
    kindOf,
    labelOf,
    called: (n) => `${labelOf(n)} (${kindOf(n)})`,
    meta(h) {
      const parts = [`tier ${h.tier}${h.tierName ? ` (${h.tierName})` : ''}`];
      if (h.source) parts.push(h.source);
      if (h.profile) parts.push(`profile ${h.profile}`);
      if (h.fabric) parts.push(`fabric ${h.fabric}`);
      parts.push(`nodeCount ${h.nodeCount}`);
      return parts.join(' \u00b7 ');
    },
    // Health: outside a plan, a HyperNode with a False condition is drawn in the unhealthy colour.
    colourClass: (h) => (data.plan ? h.change || 'same' : h.unhealthy ? 'unhealthy' : `c${levelOf(h).colour}`),
  };
}
