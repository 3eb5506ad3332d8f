// The script of the HTML topology view (topology-html.ts inlines it, as
// esbuild made it into one IIFE: scripts/lib/page-script.mjs): it runs in the
// reader's browser, not in the controller. It reads the view's data
// (topology-data.ts) from the page, lays out the icicle and draws it, fills
// the tree list, wires the search, the side panel, the tooltip and the
// keyboard, and draws the legend; Nodes with the fabric taint are marked in
// each. No library, no network. It marks <html data-state="ready"> after the
// first drawing, and performance marks (view:start, view:parsed,
// view:laid-out, view:drawn) for the benchmark.

import { hyperNodeWords } from './hypernode-words.ts';
import { icicle } from './icicle-drawing.ts';
import { layOut } from './icicle-layout.ts';
import { byId } from './page-elements.ts';
import { drawLegend, listNotes } from './page-legend.ts';
import { pageSearch } from './page-search.ts';
import { pictureInput } from './picture-input.ts';
import { sidePanel } from './side-panel.ts';
import { taintedNodes } from './tainted-nodes.ts';
import type { TopologyView } from './topology-data.ts';

performance.mark('view:start');
const data = JSON.parse(byId('topology-data').textContent ?? '') as TopologyView;
performance.mark('view:parsed');
const words = hyperNodeWords(data);
const tainted = taintedNodes(data);
const layout = layOut(data.hyperNodes, words.labelOf);
performance.mark('view:laid-out');

const svg = byId<SVGSVGElement>('icicle');
const status = byId('status');
const picture = icicle(svg, byId('crumbs-path'), byId('reset'), data, layout, words, tainted);
const panel = sidePanel(byId('tree'), byId('details'), data, layout, words, picture, tainted);
const ask = pageSearch(
  { form: byId<HTMLFormElement>('search'), input: byId<HTMLInputElement>('q'), status, svg, tree: byId('tree') },
  data.hyperNodes.map((h) => h.name),
  layout,
  words,
  picture,
  panel,
);
pictureInput({ svg, tip: byId('tip'), status }, data, layout, words, picture, panel, tainted, ask);
drawLegend(byId('legend'), data, tainted.total);
listNotes(byId('notes'), data);

let pending = 0;
window.addEventListener('resize', () => {
  cancelAnimationFrame(pending);
  pending = requestAnimationFrame(picture.draw);
});
picture.zoom(-1);
performance.mark('view:drawn');
document.documentElement.dataset.state = 'ready';
