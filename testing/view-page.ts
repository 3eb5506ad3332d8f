// Reading the HTML topology view (src/hypernode/exports/view/) back in tests:
// the data a page carries, from its text or from the page a browser drew.

/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import type { TopologyView } from '../src/hypernode/exports/view/browser/topology-data.ts';

/** The view data inside a page's text; throws when the page carries none. */
export function viewData(html: string): TopologyView {
  const data = /<script type="application\/json" id="topology-data">(.*?)<\/script>/s.exec(html);
  if (!data) throw new Error('the page carries no topology data (script#topology-data)');
  return JSON.parse(data[1]!) as TopologyView;
}

/** The HyperNode names of the view open in `page`, in the order the rectangles' data-i index. */
export function drawnNames(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    (
      JSON.parse(document.getElementById('topology-data')!.textContent!) as { hyperNodes: { name: string }[] }
    ).hyperNodes.map((h) => h.name),
  );
}
