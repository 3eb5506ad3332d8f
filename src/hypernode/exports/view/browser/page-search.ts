// Search: a HyperNode's name shows its path; a Node's name every HyperNode
// holding it, with the Node marked in its row of the picture and of the tree
// list; anything else is answered with similar names. After each answer the
// page's root carries data-searched="<query>", for the tests and the benchmark.

import { NODE_PX, type Icicle } from './icicle-drawing.ts';
import type { IcicleLayout } from './icicle-layout.ts';
import { plural, type HyperNodeWords } from './hypernode-words.ts';
import { summaryOf } from './page-elements.ts';
import type { SidePanel } from './side-panel.ts';

/** Similar names offered for a miss: HyperNodes, then Nodes up to the second bound. */
const SIMILAR_HYPERNODES = 5;
const SIMILAR_NAMES = 8;

export interface PageSearchParts {
  readonly form: HTMLFormElement;
  readonly input: HTMLInputElement;
  readonly status: HTMLElement;
  readonly svg: SVGSVGElement;
  readonly tree: HTMLElement;
}

/** Wires the search form; returns `ask`, which answers a query as if typed. */
export function pageSearch(
  parts: PageSearchParts,
  hyperNodeNames: readonly string[],
  layout: IcicleLayout,
  words: HyperNodeWords,
  picture: Icicle,
  panel: SidePanel,
): (query: string) => void {
  const { form, input, status, svg, tree } = parts;
  const { byName, nodeIn, parents, pathOf, weight } = layout;
  const { called } = words;
  const { rects, found } = picture;
  const { rows } = panel;
  let hits: number[] = [];

  function clearHits(): void {
    for (const n of hits) {
      rects[n]!.classList.remove('hit');
      const row = rows[n];
      if (row) summaryOf(row).classList.remove('hit');
    }
    hits = [];
    found.node = null;
    found.holders = new Set();
    tree.querySelectorAll('mark').forEach((m) => m.replaceWith(document.createTextNode(m.textContent ?? '')));
    svg.classList.remove('searching');
  }

  function ancestors(starts: readonly number[]): number[] {
    const seen = new Set(starts);
    const queue = starts.slice();
    while (queue.length) {
      const n = queue.pop()!;
      for (const p of parents[n]!)
        if (!seen.has(p)) {
          seen.add(p);
          queue.push(p);
        }
    }
    return Array.from(seen);
  }

  /** The highest HyperNode on n's path at whose zoom each of n's Nodes gets a cell of its own (else n). */
  function nodeZoom(n: number): number {
    const width = svg.clientWidth || 800;
    for (const p of pathOf(n)) if (weight[p]! * NODE_PX <= width) return p;
    return n;
  }

  function search(query: string): void {
    clearHits();
    status.className = '';
    const q = query.trim();
    if (q === '') {
      status.textContent = '';
      picture.zoom(-1);
      return;
    }
    let starts: readonly number[] | undefined;
    let what = '';
    let node: string | null = null;
    if (byName.has(q)) {
      starts = [byName.get(q)!];
      what = 'HyperNode';
    } else if (nodeIn.has(q)) {
      starts = nodeIn.get(q)!;
      what = 'Node';
      node = q;
    }
    if (!starts) {
      const lower = q.toLowerCase();
      const near: string[] = [];
      for (let k = 0; k < hyperNodeNames.length && near.length < SIMILAR_HYPERNODES; k++)
        if (hyperNodeNames[k]!.toLowerCase().indexOf(lower) >= 0) near.push(hyperNodeNames[k]!);
      nodeIn.forEach((_v, name) => {
        if (near.length < SIMILAR_NAMES && name.toLowerCase().indexOf(lower) >= 0) near.push(name);
      });
      status.className = 'miss';
      status.textContent = `No Node or HyperNode is named \u201c${q}\u201d${near.length ? `. Similar: ${near.join(', ')}` : '.'}`;
      picture.zoom(-1);
      return;
    }
    const first = starts[0]!;
    hits = ancestors(starts);
    svg.classList.add('searching');
    for (const n of hits) rects[n]!.classList.add('hit');
    starts.forEach(panel.reveal);
    for (const n of hits) {
      const row = rows[n];
      if (row) summaryOf(row).classList.add('hit');
    }
    if (node !== null) {
      const name = node;
      found.node = name;
      found.holders = new Set(starts);
      for (const n of starts) {
        panel.fill(n);
        rows[n]!.open = true;
        const sp = rows[n]!.querySelector(`[data-node="${CSS.escape(name)}"]`);
        if (sp) {
          const m = document.createElement('mark');
          m.textContent = name;
          sp.textContent = '';
          sp.appendChild(m);
        }
      }
    }
    picture.zoom(node !== null ? nodeZoom(first) : pathOf(first)[0]!);
    panel.select(first, false);
    summaryOf(rows[first]!).scrollIntoView({ block: 'center' });
    const path = pathOf(first).map(called).reverse();
    if (node !== null) path.unshift(node);
    status.textContent = `${what} ${q}: ${node !== null ? `in ${plural(starts.length, 'HyperNode')}, ` : ''}${hits.length} highlighted: ${path.join(' \u2190 ')}`;
  }

  function ask(query: string): void {
    input.value = query;
    performance.mark('view:search');
    search(query);
    performance.mark('view:searched');
    document.documentElement.dataset.searched = query;
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    ask(input.value);
  });
  return ask;
}
