// The HTML topology view as one self-contained page: the view's data
// (topology-model.ts) as JSON, the stylesheet and the script inlined, and a
// Content-Security-Policy that forbids every network request, so the file
// opens from disk, offline, and cannot phone out even if a label value were
// crafted to try. The policy allows the one inline script and the one inline
// stylesheet by their SHA-256 (never 'unsafe-inline'), so markup that slipped
// into the page could run no script of its own. `render -o html`, `plan -o
// html` and `kubectl hypernode tree -o html` write it; anything that serves a
// topology page can too.

import { createHash } from 'node:crypto';
import { escapeHtml } from '../../../util/html-escape.ts';
import type { TopologyView } from './browser/topology-data.ts';
import { TOPOLOGY_PAGE_SCRIPT } from './topology-page-script.generated.ts';
import { TOPOLOGY_PAGE_STYLE } from './topology-page-style.ts';

/** A CSP hash source for an inline element whose text is exactly `text`. */
function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The page's own script and stylesheet, by hash; no fetch, image, font,
 * frame, form target or base URL from anywhere. Exported so a server answering
 * with the page sends the same policy as a header: both apply, and a stricter
 * header would stop the script.
 */
export const TOPOLOGY_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${hashSource(TOPOLOGY_PAGE_STYLE)}`,
  `script-src ${hashSource(TOPOLOGY_PAGE_SCRIPT)}`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The whole page for `view`, as a string to write to a file or answer a request with. */
export function topologyHtml(view: TopologyView): string {
  const title = escapeHtml(view.title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${TOPOLOGY_PAGE_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>${TOPOLOGY_PAGE_STYLE}</style>
</head>
<body>
<header>
<h1>${title}</h1>
<form id="search" role="search"><input id="q" type="search" placeholder="Node or HyperNode name" aria-label="Node or HyperNode name" autocomplete="off"><button type="submit">Find</button></form>
<span id="status" role="status"></span>
<div id="legend"></div>
</header>
<div id="notes"></div>
<main>
<section id="picture"><nav id="crumbs" aria-label="zoom"><button id="reset" type="button">whole topology</button><span id="crumbs-path"></span><span id="keys">keys on the picture: ← ↑ → ↓ select · Enter zoom in · Esc zoom out</span></nav><svg id="icicle" tabindex="0" role="img" aria-label="HyperNode tree, one rectangle per HyperNode, rows by depth, widths by Nodes beneath, each HyperNode's Nodes in the row below it"></svg><div id="tip" role="tooltip" hidden></div></section>
<aside id="side"><section id="details" aria-live="polite" hidden></section><section id="list"><div id="tree"></div></section></aside>
</main>
<noscript>This view draws with JavaScript; the same data is in the page as JSON (script#topology-data).</noscript>
<script type="application/json" id="topology-data">${scriptSafeJson(view)}</script>
<script>${TOPOLOGY_PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/**
 * JSON that cannot end its <script> element early: `<` is written as a
 * JSON escape, so no `</script>` or `<!--` in a label value survives as markup;
 * U+2028/2029 likewise, for older parsers.
 */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
