// The side panel: the tree list, filled lazily (a row's children are built
// when it is first opened, so 9,300 HyperNodes open fast), and above it the
// details of one HyperNode (its Nodes that carry the fabric taint among
// them, and in a plan its field-level diff). A Node with the fabric taint is
// marked in the list, its taint in its tooltip. Every value is set as text.

import { formedBy, plural, type HyperNodeWords } from './hypernode-words.ts';
import type { Icicle } from './icicle-drawing.ts';
import type { IcicleLayout } from './icicle-layout.ts';
import { span, summaryOf } from './page-elements.ts';
import { describeTaint, TAINTED, type TaintedNodes } from './tainted-nodes.ts';
import type { TopologyView } from './topology-data.ts';

/** Nodes a tree row names before "… and N more". */
const NODES_LISTED = 500;
/** Children and Nodes the details name before "…". */
const DETAILS_LISTED = 20;

export interface SidePanel {
  /** Each HyperNode's tree row, once its parent's row is filled. */
  readonly rows: readonly (HTMLDetailsElement | undefined)[];
  /** Builds the rows of n's children and its Nodes, once. */
  fill(n: number): void;
  /** Shows n's details and marks it selected; from the picture, its row is opened and scrolled to. */
  select(n: number, fromPicture: boolean): void;
  /** Opens the rows down to n. */
  reveal(n: number): void;
  /** The selected HyperNode, -1 for none. */
  selected(): number;
}

export function sidePanel(
  tree: HTMLElement,
  details: HTMLElement,
  data: TopologyView,
  layout: IcicleLayout,
  words: HyperNodeWords,
  picture: Icicle,
  tainted: TaintedNodes,
): SidePanel {
  const hns = data.hyperNodes;
  const { kids, weight, parents, pathOf } = layout;
  const { called, colourClass, kindOf, labelOf } = words;
  const rows: (HTMLDetailsElement | undefined)[] = [];

  function row(n: number): HTMLDetailsElement {
    const h = hns[n]!;
    const d = document.createElement('details');
    const s = document.createElement('summary');
    d.dataset.i = String(n);
    s.dataset.i = String(n);
    s.title = `${h.name}\n${words.meta(h)}`;
    s.appendChild(span(`swatch ${colourClass(h)}`));
    s.appendChild(span('label', labelOf(n)));
    s.appendChild(span('kind', kindOf(n)));
    s.appendChild(span('meta', plural(weight[n]!, 'Node')));
    if (data.plan && h.change) s.appendChild(span(`tag ${h.change}`, h.change));
    d.appendChild(s);
    rows[n] = d;
    return d;
  }

  function fill(n: number): void {
    const d = rows[n]!;
    if (d.dataset.filled) return;
    d.dataset.filled = '1';
    const frag = document.createDocumentFragment();
    for (const c of kids[n]!) frag.appendChild(row(c));
    const h = hns[n]!;
    if (h.nodes.length) {
      const div = document.createElement('div');
      div.className = 'nodes';
      const first = h.nodes.slice(0, NODES_LISTED);
      first.forEach((name, k) => {
        if (k) div.appendChild(document.createTextNode(', '));
        const sp = document.createElement('span');
        sp.textContent = name;
        sp.dataset.node = name;
        const taint = tainted.of(name);
        if (taint) {
          sp.className = TAINTED;
          sp.title = describeTaint(taint).join('\n');
        }
        div.appendChild(sp);
      });
      if (h.nodes.length > first.length)
        div.appendChild(document.createTextNode(` \u2026 and ${h.nodes.length - first.length} more`));
      frag.appendChild(div);
    }
    d.appendChild(frag);
  }

  let selected = -1;
  function select(n: number, fromPicture: boolean): void {
    if (selected >= 0) {
      picture.rects[selected]!.classList.remove('selected');
      const was = rows[selected];
      if (was) summaryOf(was).classList.remove('selected');
    }
    selected = n;
    picture.rects[n]!.classList.add('selected');
    const now = rows[n];
    if (now) summaryOf(now).classList.add('selected');
    const h = hns[n]!;
    details.textContent = '';
    const close = document.createElement('button');
    close.type = 'button';
    close.textContent = '\u00d7';
    close.title = 'close';
    close.className = 'close';
    close.onclick = () => {
      details.hidden = true;
    };
    details.appendChild(close);
    const title = document.createElement('h2');
    title.appendChild(span(`swatch ${colourClass(h)}`));
    title.appendChild(span('label', labelOf(n)));
    title.appendChild(span('kind', kindOf(n)));
    details.appendChild(title);
    const dl = document.createElement('dl');
    const field = (k: string, v: string | undefined) => {
      if (v === undefined || v === '') return;
      const dt = document.createElement('dt');
      dt.textContent = k;
      const dd = document.createElement('dd');
      dd.textContent = v;
      dl.appendChild(dt);
      dl.appendChild(dd);
    };
    field('name', h.name);
    if (data.plan) field('change', h.change || 'none');
    field('tier', String(h.tier) + (h.tierName ? ` (${h.tierName})` : ''));
    field('formed by', formedBy(h));
    field('source', h.source);
    field('profile', h.profile);
    field('fabric', h.fabric);
    field('Nodes beneath', `${weight[n]} (nodeCount ${h.nodeCount})`);
    if (h.unhealthy) field('unhealthy', h.unhealthy.join('; '));
    const taints = tainted.in(n);
    if (taints.length)
      field(
        'fabric taint',
        `${taints.length}: ${taints.slice(0, DETAILS_LISTED).join(', ')}${taints.length > DETAILS_LISTED ? ', \u2026' : ''}`,
      );
    field('path', pathOf(n).map(called).join(' \u203a '));
    if (parents[n]!.length > 1) field('parents', parents[n]!.map((p) => `${called(p)} ${hns[p]!.name}`).join(', '));
    if (h.children.length)
      field(
        'HyperNodes',
        `${h.children.length}: ${h.children.slice(0, DETAILS_LISTED).map(called).join(', ')}${h.children.length > DETAILS_LISTED ? ', \u2026' : ''}`,
      );
    if (h.nodes.length)
      field(
        'Nodes',
        `${h.nodes.length}: ${h.nodes.slice(0, DETAILS_LISTED).join(', ')}${h.nodes.length > DETAILS_LISTED ? ', \u2026' : ''}`,
      );
    details.appendChild(dl);
    if (h.diff && h.diff.length) {
      const ul = document.createElement('ul');
      ul.className = 'diff';
      for (const line of h.diff) {
        const li = document.createElement('li');
        li.textContent = line;
        ul.appendChild(li);
      }
      details.appendChild(ul);
    }
    details.hidden = false;
    if (fromPicture) {
      reveal(n);
      summaryOf(rows[n]!).scrollIntoView({ block: 'nearest' });
    }
  }

  function reveal(n: number): void {
    const path = pathOf(n);
    for (let k = 0; k < path.length - 1; k++) {
      fill(path[k]!);
      rows[path[k]!]!.open = true;
    }
  }

  for (const r of layout.roots) tree.appendChild(row(r));
  if (layout.roots.length <= 4)
    for (const r of layout.roots) {
      fill(r);
      rows[r]!.open = true;
    }
  tree.addEventListener('click', (e) => {
    const s = (e.target as Element).closest('summary');
    if (!s) return;
    const n = Number(s.dataset.i);
    fill(n);
    select(n, false);
    picture.bringIntoView(n);
  });

  return { rows, fill, select, reveal, selected: () => selected };
}
