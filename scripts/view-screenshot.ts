// A screenshot of an HTML topology view page (`render -o html`, the demo's
// dist/demo/topology.html) as a person first sees it, in headless Chromium
// (Debian's, through playwright-core): the page opened from disk at the given
// size, taken once it has drawn. docs/images/topology-view-after.png is the
// demo page's: `npm run demo`, then
//   node --import tsx scripts/view-screenshot.ts dist/demo/topology.html docs/images/topology-view-after.png
// The other doc screenshots come from tests/hypernode/exports/view/topology-html.test.ts.
//
// Run with: node --import tsx scripts/view-screenshot.ts PAGE.html OUT.png [width=1400] [height=900]

import { launchChromium, missingChromium, openPage, waitUntilDrawn } from '../testing/browser.ts';

async function main(): Promise<void> {
  const [page, out, width = '1400', height = '900'] = process.argv.slice(2);
  if (!page || !out) throw new Error('usage: view-screenshot.ts PAGE.html OUT.png [width] [height]');
  const missing = missingChromium();
  if (missing) throw new Error(missing);
  const browser = await launchChromium();
  try {
    const opened = await openPage(browser, page, { width: Number(width), height: Number(height) });
    await waitUntilDrawn(opened.page, { timeout: 30_000 });
    if (opened.errors.length > 0 || opened.requests.length > 0)
      throw new Error(
        `the page reported ${JSON.stringify(opened.errors)} and requested ${JSON.stringify(opened.requests)}`,
      );
    await opened.page.screenshot({ path: out });
    console.log(`${out}: ${page} at ${width}×${height}`);
  } finally {
    await browser.close();
  }
}

await main();
