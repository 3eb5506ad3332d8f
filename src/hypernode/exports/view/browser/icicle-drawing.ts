// The icicle: one <rect> per HyperNode, rows by depth, widths by the Nodes
// beneath, each labelled with what formed its domain and its tierName, and
// below each HyperNode that holds Nodes a row of those Nodes (one cell each,
// or one cell with their count where a Node would be narrower than a few
// pixels). Every HyperNode has its <rect>; one narrower than a pixel waits in
// a group that is not displayed (it could not be seen, and styling and laying
// out thousands of them is what makes a big page slow), and its parent gets
// one hatched "fold" below it instead: a click there zooms in. Nodes and text
// are drawn afresh for what is in view; everything user-supplied goes through
// esc(). Zoom: the picture spans one HyperNode (its ancestors as full-width
// bars above it), or the whole topology; the crumbs lead back up. A Node
// carrying the fabric taint is drawn in the taint's colour, and so is a
// counted cell holding one.

import { plural, type HyperNodeWords } from './hypernode-words.ts';
import type { IcicleLayout } from './icicle-layout.ts';
import { TAINTED, type TaintedNodes } from './tainted-nodes.ts';
import type { TopologyView } from './topology-data.ts';

/** Narrower than this a HyperNode is not drawn. */
const MIN_PX = 1;
/** Narrower than this a Node gets no cell of its own. */
export const NODE_PX = 4;
const MIN_ROW = 18;
const MAX_ROW = 128;
/** Fills dark enough to need light text. */
const DARK = new Set(['create', 'delete', 'held']);
/** Fewer characters than this, and a label is turned upright or left out. */
const FEW = 4;

export interface Icicle {
  /** Each HyperNode's <rect>, by index. */
  readonly rects: readonly SVGRectElement[];
  /** Whether each HyperNode's <rect> is drawn now. */
  readonly shown: Uint8Array;
  /** The span in view, and the HyperNode zoomed into (-1: the whole topology). */
  readonly view: { from: number; to: number; focus: number };
  /** The Node searched for and the HyperNodes holding it directly, for the Node row. */
  readonly found: { node: string | null; holders: Set<number> };
  draw(): void;
  /** Shows HyperNode n across the picture, or (-1) the whole topology. */
  zoom(n: number): void;
  zoomOut(): void;
  /** Zooms the picture, if it must, so that n is drawn: to its parent, else to n itself. */
  bringIntoView(n: number): void;
}

export function esc(s: string): string {
  const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
  return String(s).replace(/[&<>"]/g, (c) => entities[c]!);
}

/** `s` cut to `chars` characters, an ellipsis last. */
function fit(s: string, chars: number): string {
  return s.length > chars ? `${s.slice(0, Math.max(1, chars - 1))}\u2026` : s;
}

export function icicle(
  svg: SVGSVGElement,
  crumbs: HTMLElement,
  reset: HTMLElement,
  data: TopologyView,
  layout: IcicleLayout,
  words: HyperNodeWords,
  tainted: TaintedNodes,
): Icicle {
  const hns = data.hyperNodes;
  const { count, kids, depth, below, weight, x0, maxRow, total } = layout;
  const { colourClass, labelOf, kindOf } = words;
  const rectsHtml: string[] = [];
  for (let i = 0; i < count; i++) rectsHtml[i] = `<rect class="hn ${colourClass(hns[i]!)}" data-i="${i}"></rect>`;
  svg.innerHTML =
    '<defs><pattern id="folded" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#cfd8dc"></rect></pattern></defs>' +
    `<g id="parked" display="none">${rectsHtml.join('')}</g><g id="rects"></g><g id="node-row"></g><g id="folds"></g><g id="labels"></g>`;
  const part = (id: string) => svg.querySelector(`#${id}`)!;
  const parked = part('parked');
  const rects = Array.from(parked.children) as SVGRectElement[];
  const drawn = part('rects');
  const nodeRow = part('node-row');
  const folds = part('folds');
  const labels = part('labels');
  const shown = new Uint8Array(count);
  const view = { from: 0, to: total, focus: -1 };
  const found = { node: null as string | null, holders: new Set<number>() };

  function draw(): void {
    const width = svg.clientWidth || 800;
    const height = svg.clientHeight || 400;
    const rowH = Math.max(MIN_ROW, Math.min(MAX_ROW, Math.floor(height / (maxRow + 1))));
    const scale = width / Math.max(1e-9, view.to - view.from);
    const text: string[] = [];
    const fold: string[] = [];
    const cells: string[] = [];
    for (let n = 0; n < count; n++) {
      let left = (x0[n]! - view.from) * scale;
      let right = (x0[n]! + weight[n]! - view.from) * scale;
      if (left < 0) left = 0;
      if (right > width) right = width;
      const r = rects[n]!;
      const w = right - left;
      if (w < MIN_PX) {
        if (shown[n]) {
          parked.appendChild(r);
          shown[n] = 0;
        }
        continue;
      }
      const y = depth[n]! * rowH;
      r.setAttribute('x', String(left));
      r.setAttribute('y', String(y));
      r.setAttribute('width', String(w));
      r.setAttribute('height', String(rowH - 1));
      if (!shown[n]) {
        drawn.appendChild(r);
        shown[n] = 1;
      }
      let hidden = 0;
      for (const k of kids[n]!) if (weight[k]! * scale < MIN_PX) hidden++;
      if (hidden) {
        // Over the children's part of n's span: its own Nodes, on the left, stay in view.
        const fl = Math.min(right, Math.max(left, (x0[n]! + hns[n]!.nodes.length - view.from) * scale));
        fold.push(
          `<rect class="fold" data-i="${n}" data-fold="${hidden}" x="${fl}" y="${(depth[n]! + 1) * rowH}" width="${right - fl}" height="${(below[n]! - depth[n]!) * rowH - 1}" fill="url(#folded)"></rect>`,
        );
      }
      if (hns[n]!.nodes.length) nodeCells(n, scale, width, y + rowH, rowH, cells, text);
      cellText(n, left, y, w, rowH, text);
    }
    folds.innerHTML = fold.join('');
    nodeRow.innerHTML = cells.join('');
    labels.innerHTML = text.join('');
  }

  /**
   * A HyperNode's label: what formed it, then its level and the Nodes beneath
   * when the row has room for a second line; turned upright where not even a
   * few characters fit across, left out where neither way fits (the tooltip
   * has it).
   */
  function cellText(n: number, left: number, y: number, w: number, rowH: number, text: string[]): void {
    const dark = DARK.has(colourClass(hns[n]!)) ? ' on-dark' : '';
    const two = rowH >= 36;
    const beneath = plural(weight[n]!, 'Node');
    const first = two ? labelOf(n) : `${labelOf(n)} \u00b7 ${kindOf(n)}`;
    const chars = Math.floor((w - 8) / 7.2);
    if (chars < Math.min(FEW, first.length)) {
      // Narrow but tall (a zone among thirty): the label turned upright.
      if (w >= 14 && rowH >= 48)
        text.push(
          `<text class="name${dark}" data-i="${n}" transform="translate(${left + w / 2 + 4},${y + rowH - 6}) rotate(-90)">${esc(fit(labelOf(n), Math.floor((rowH - 10) / 7.2)))}</text>`,
        );
      return;
    }
    text.push(
      `<text class="name${dark}" data-i="${n}" x="${left + 4}" y="${y + Math.min(rowH - 5, 16)}">${esc(fit(first, chars))}</text>`,
    );
    const small = Math.floor((w - 8) / 6);
    const second = `${kindOf(n)} \u00b7 ${beneath}`;
    if (two && small >= Math.min(FEW, kindOf(n).length))
      text.push(
        `<text class="kind${dark}" x="${left + 4}" y="${y + 31}">${esc(fit(second.length <= small ? second : kindOf(n), small))}</text>`,
      );
  }

  /**
   * The row of n's Nodes at y: a cell per Node where a Node gets NODE_PX or
   * more (named, upright or turned, where the name fits), else one cell
   * holding their count. Only what is in view is drawn.
   */
  function nodeCells(
    n: number,
    scale: number,
    width: number,
    y: number,
    rowH: number,
    cells: string[],
    text: string[],
  ) {
    const names = hns[n]!.nodes;
    const nx = (x0[n]! - view.from) * scale;
    const hitCls = found.holders.has(n) ? ' hit' : '';
    if (scale < NODE_PX) {
      const l = Math.max(0, nx);
      const r = Math.min(width, nx + names.length * scale);
      if (r - l < MIN_PX) return;
      const taintCls = tainted.in(n).length > 0 ? ` ${TAINTED}` : '';
      cells.push(
        `<rect class="nd agg${taintCls}${hitCls}" data-h="${n}" x="${l}" y="${y}" width="${r - l}" height="${rowH - 1}"></rect>`,
      );
      const what = r - l > 64 ? plural(names.length, 'Node') : String(names.length);
      if (r - l > what.length * 7 + 6)
        text.push(`<text class="nd-count" x="${l + 3}" y="${y + Math.min(rowH - 5, 15)}">${what}</text>`);
      return;
    }
    const from = Math.max(0, Math.floor(-nx / scale));
    const to = Math.min(names.length, Math.ceil((width - nx) / scale));
    const turned = scale >= 11 && rowH >= 40;
    for (let k = from; k < to; k++) {
      const left = nx + k * scale;
      const name = names[k]!;
      const hit = name === found.node ? ' hit' : '';
      const taintCls = tainted.of(name) ? ` ${TAINTED}` : '';
      cells.push(
        `<rect class="nd${taintCls}${hit}" data-node="${esc(name)}" data-h="${n}" x="${left}" y="${y}" width="${scale}" height="${rowH - 1}"></rect>`,
      );
      if (turned)
        text.push(
          `<text class="nd-name${hit}" transform="translate(${left + scale / 2 + 4},${y + rowH - 5}) rotate(-90)">${esc(fit(name, Math.floor((rowH - 8) / 6.2)))}</text>`,
        );
      else if (scale > name.length * 6.2 + 6)
        text.push(`<text class="nd-name${hit}" x="${left + 3}" y="${y + Math.min(rowH - 5, 15)}">${esc(name)}</text>`);
    }
  }

  function zoom(n: number): void {
    if (n < 0) {
      view.from = 0;
      view.to = total;
    } else {
      view.from = x0[n]!;
      view.to = x0[n]! + weight[n]!;
    }
    view.focus = n;
    crumbs.textContent = '';
    if (n >= 0)
      for (const p of layout.pathOf(n)) {
        crumbs.appendChild(document.createTextNode(' \u203a '));
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'crumb';
        b.dataset.i = String(p);
        b.textContent = words.called(p);
        b.title = hns[p]!.name;
        crumbs.appendChild(b);
      }
    draw();
  }
  crumbs.addEventListener('click', (e) => {
    const b = (e.target as Element).closest('button');
    if (b) zoom(Number(b.dataset.i));
  });
  reset.addEventListener('click', () => zoom(-1));

  return {
    rects,
    shown,
    view,
    found,
    draw,
    zoom,
    zoomOut() {
      if (view.focus >= 0) zoom(layout.layoutParent(view.focus));
    },
    bringIntoView(n) {
      if (!shown[n]) zoom(layout.layoutParent(n));
      if (!shown[n]) zoom(n);
    },
  };
}
