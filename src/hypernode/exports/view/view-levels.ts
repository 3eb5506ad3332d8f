// The levels of the HTML topology view's legend: one per tierName (`zone`,
// `leaf`, …; `tier N` for HyperNodes without one), with the tiers it is at
// and the Node label keys that formed its domains, and a colour that follows
// the tierName rather than the page: the same tierName is drawn in the same
// colour on every page, whatever else the page holds, so a reader who learnt
// "racks are green" keeps that from one cluster or plan to the next.

import { compareBytes } from '../../../util/compare-bytes.ts';
import type { ViewLevel } from './browser/topology-data.ts';

/** How many fills the page's palette holds (topology-page-style.ts: `--c0` … `--c7`). */
export const LEVEL_COLOURS = 8;

/** What levelsOf reads of each HyperNode. */
export interface LevelMember {
  readonly tier: number;
  readonly tierName?: string;
  readonly domainLabel?: string;
}

/** The level a HyperNode is drawn in: its tierName, else its tier. */
function levelName(h: LevelMember): string {
  return h.tierName ?? `tier ${h.tier}`;
}

/**
 * The levels of `hyperNodes`, highest tier first (then by name). Each takes
 * the colour its tierName hashes to; when two levels of one page hash to the
 * same colour, the lower one takes the next free colour, so a page shows
 * distinct colours for up to LEVEL_COLOURS levels (more share).
 */
export function levelsOf(hyperNodes: readonly LevelMember[]): ViewLevel[] {
  const found = new Map<string, { tiers: Set<number>; keys: Set<string> }>();
  for (const h of hyperNodes) {
    const name = levelName(h);
    let level = found.get(name);
    if (!level) found.set(name, (level = { tiers: new Set(), keys: new Set() }));
    level.tiers.add(h.tier);
    if (h.domainLabel !== undefined) level.keys.add(h.domainLabel);
  }
  const levels = [...found]
    .map(([tierName, l]) => ({
      tierName,
      tiers: [...l.tiers].sort((a, b) => b - a),
      labelKeys: [...l.keys].sort(compareBytes),
    }))
    .sort((a, b) => b.tiers[0]! - a.tiers[0]! || compareBytes(a.tierName, b.tierName));
  const taken = new Set<number>();
  return levels.map((l) => {
    let colour = colourOf(l.tierName);
    for (let probe = 0; probe < LEVEL_COLOURS && taken.has(colour); probe++) colour = (colour + 1) % LEVEL_COLOURS;
    taken.add(colour);
    return { ...l, colour };
  });
}

/** FNV-1a of the tierName's UTF-16 code units, onto the palette: the same on every page. */
function colourOf(tierName: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < tierName.length; i++) hash = Math.imul(hash ^ tierName.charCodeAt(i), 0x01000193) >>> 0;
  return hash % LEVEL_COLOURS;
}
