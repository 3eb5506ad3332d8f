// The legend: the levels by tierName in their colours, or a plan's change
// kinds with their counts, then the count of Nodes with the fabric taint if
// any; and the notes above the picture (a plan's warnings, the controller's
// state).

import { shortName } from './hypernode-words.ts';
import { span } from './page-elements.ts';
import { TAINTED, taintLegend } from './tainted-nodes.ts';
import type { TopologyView, ViewChange } from './topology-data.ts';

/** A plan's change kinds in the legend's order, each with its words. */
const CHANGE_KINDS: readonly (readonly [ViewChange | 'same', string])[] = [
  ['create', 'create'],
  ['update', 'update'],
  ['delete', 'delete'],
  ['held', 'held delete'],
  ['same', 'unchanged'],
];

export function drawLegend(legend: HTMLElement, data: TopologyView, taintedCount: number): void {
  const swatch = (cls: string, name: string, more: string, title: string) => {
    const s = span('entry');
    s.appendChild(span(`swatch ${cls}`));
    s.appendChild(span('level', name));
    if (more) s.appendChild(span('more', more));
    s.dataset.kind = cls;
    s.title = title;
    legend.appendChild(s);
  };
  if (data.plan) {
    const counts: Record<ViewChange | 'same', number> = { create: 0, update: 0, delete: 0, held: 0, same: 0 };
    for (const h of data.hyperNodes) counts[h.change || 'same']++;
    for (const [kind, words] of CHANGE_KINDS) swatch(kind, `${words} ${counts[kind]}`, '', words);
  } else {
    for (const l of data.levels) {
      const more: string[] = [];
      if (shortName(l.tierName) !== l.tierName) more.push(l.tierName);
      const keys = l.labelKeys.filter((k) => k !== l.tierName);
      if (keys.length) more.push(`label ${keys.join(', ')}`);
      more.push(`tier ${l.tiers.join(', ')}`);
      swatch(
        `c${l.colour}`,
        shortName(l.tierName),
        more.join(' \u00b7 '),
        `tierName ${l.tierName}${l.labelKeys.length ? `, from the Node label ${l.labelKeys.join(', ')}` : ''}, tier ${l.tiers.join(', ')}`,
      );
    }
  }
  if (taintedCount > 0) {
    const { name, title } = taintLegend(taintedCount);
    swatch(TAINTED, name, '', title);
  }
}

export function listNotes(notes: HTMLElement, data: TopologyView): void {
  for (const line of data.notes) {
    const p = document.createElement('div');
    p.textContent = line;
    notes.appendChild(p);
  }
}
