// What the pointer and the keyboard do on the picture. A click on a
// HyperNode selects it and zooms into it (a leaf: into its parent); on a Node
// finds that Node. The tooltip names what the pointer is over, in full. The
// arrows move the selection (up to the parent, down to the first child,
// sideways along the row), Enter zooms into it, Escape zooms back out, Home
// shows the whole topology. A Node's tooltip names its fabric taint, if it
// carries one: the source and fabric it is cut off from.

import { formedBy, plural, type HyperNodeWords } from './hypernode-words.ts';
import type { Icicle } from './icicle-drawing.ts';
import type { IcicleLayout } from './icicle-layout.ts';
import type { SidePanel } from './side-panel.ts';
import { describeTaint, type TaintedNodes } from './tainted-nodes.ts';
import type { TopologyView } from './topology-data.ts';

export interface PictureParts {
  readonly svg: SVGSVGElement;
  readonly tip: HTMLElement;
  readonly status: HTMLElement;
}

/** The data-* of what an event happened on (nothing for an element without any). */
function dataOf(e: Event): DOMStringMap | undefined {
  return (e.target as Partial<HTMLOrSVGElement> | null)?.dataset;
}

export function pictureInput(
  parts: PictureParts,
  data: TopologyView,
  layout: IcicleLayout,
  words: HyperNodeWords,
  picture: Icicle,
  panel: SidePanel,
  tainted: TaintedNodes,
  ask: (query: string) => void,
): void {
  const { svg, tip, status } = parts;
  const hns = data.hyperNodes;
  const { count, depth, kids, x0, weight, layoutParent, pathOf } = layout;
  const { called } = words;

  svg.addEventListener('click', (e) => {
    const t = dataOf(e) || {};
    if (t.node !== undefined) {
      ask(t.node);
      return;
    }
    const n = t.i !== undefined ? Number(t.i) : t.h !== undefined ? Number(t.h) : -1;
    if (n < 0) return;
    panel.select(n, true);
    picture.zoom(kids[n]!.length ? n : layoutParent(n));
  });

  function tipLines(t: DOMStringMap): string[] {
    if (t.node !== undefined) {
      const taint = tainted.of(t.node);
      return [
        `Node ${t.node}`,
        `in ${pathOf(Number(t.h)).map(called).reverse().join(' \u2190 ')}`,
        ...(taint ? describeTaint(taint) : []),
        'click: find it',
      ];
    }
    if (t.fold !== undefined)
      return [`${t.fold} HyperNodes too narrow to draw here`, `click: zoom into ${called(Number(t.i))}`];
    if (t.h !== undefined) {
      const ns = hns[Number(t.h)]!.nodes;
      const taints = tainted.in(Number(t.h)).length;
      return [
        `${plural(ns.length, 'Node')} of ${called(Number(t.h))}`,
        `${ns[0]} \u2026 ${ns[ns.length - 1]}`,
        ...(taints > 0 ? [`${taints} of them with the fabric taint`] : []),
        'click: zoom in to see each',
      ];
    }
    const n = Number(t.i);
    const h = hns[n]!;
    const lines = [called(n), h.name, words.meta(h)];
    if (h.domain !== undefined) lines.push(formedBy(h));
    lines.push(
      `${plural(weight[n]!, 'Node')} beneath${h.children.length ? `, ${plural(h.children.length, 'HyperNode')} below it` : ''}`,
    );
    if (data.plan) lines.push(`change: ${h.change || 'none'}`);
    return lines;
  }
  svg.addEventListener('mousemove', (e) => {
    const t = dataOf(e);
    if (!t || (t.i === undefined && t.h === undefined)) {
      tip.hidden = true;
      return;
    }
    tip.textContent = '';
    tipLines(t).forEach((line, k) => {
      const d = document.createElement('div');
      if (k === 0) d.className = 'lead';
      d.textContent = line;
      tip.appendChild(d);
    });
    tip.hidden = false;
    let x = e.clientX + 14;
    let y = e.clientY + 16;
    if (x + tip.offsetWidth > window.innerWidth - 4) x = Math.max(4, e.clientX - tip.offsetWidth - 10);
    if (y + tip.offsetHeight > window.innerHeight - 4) y = Math.max(4, e.clientY - tip.offsetHeight - 10);
    tip.style.left = `${x}px`;
    tip.style.top = `${y}px`;
  });
  svg.addEventListener('mouseleave', () => {
    tip.hidden = true;
  });

  // The HyperNodes of each row, left to right, built at the first sideways step.
  let byRow: number[][] | null = null;
  function neighbour(n: number, step: number): number {
    if (!byRow) {
      const rows: number[][] = [];
      for (let k = 0; k < count; k++) (rows[depth[k]!] ??= []).push(k);
      for (const r of rows) r?.sort((a, b) => x0[a]! - x0[b]!);
      byRow = rows;
    }
    const r = byRow[depth[n]!]!;
    const at = r.indexOf(n) + step;
    return at >= 0 && at < r.length ? r[at]! : -1;
  }
  function moveTo(n: number): void {
    if (n < 0) return;
    panel.select(n, true);
    picture.bringIntoView(n);
    status.className = '';
    status.textContent = `${called(n)}: ${hns[n]!.name}`;
  }
  svg.addEventListener('keydown', (e) => {
    const n = panel.selected();
    if (e.key === 'Escape') {
      tip.hidden = true;
      picture.zoomOut();
    } else if (e.key === 'Home') picture.zoom(-1);
    // An empty topology has no root to move to.
    else if (n < 0 && e.key.startsWith('Arrow'))
      moveTo(picture.view.focus >= 0 ? picture.view.focus : (layout.roots[0] ?? -1));
    else if (e.key === 'ArrowUp') moveTo(layoutParent(n));
    else if (e.key === 'ArrowDown') moveTo(kids[n]!.length ? kids[n]![0]! : -1);
    else if (e.key === 'ArrowLeft') moveTo(neighbour(n, -1));
    else if (e.key === 'ArrowRight') moveTo(neighbour(n, 1));
    else if (e.key === 'Enter' && n >= 0) picture.zoom(kids[n]!.length || hns[n]!.nodes.length ? n : layoutParent(n));
    else return;
    e.preventDefault();
  });
}
