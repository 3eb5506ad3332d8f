// The topology view's browser script is committed as the text esbuild makes
// of src/hypernode/exports/view/browser/ (scripts/lib/page-script.mjs): the
// committed module is exactly what the sources make now, carries that text
// unchanged through its escaping, and can be inlined in a <script> element.
// The page's Content-Security-Policy allows the script by the SHA-256 of that
// text (tests/security/html-view-csp.test.ts runs it in Chromium).

import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error: plain JavaScript build helpers, no type declarations
import * as pageScriptLib from '../../../../scripts/lib/page-script.mjs';
import { TOPOLOGY_PAGE_SCRIPT } from '../../../../src/hypernode/exports/view/topology-page-script.generated.ts';

const { GENERATE_COMMAND, PAGE_SCRIPT_MODULE, pageScript, pageScriptModule } = pageScriptLib as {
  GENERATE_COMMAND: string;
  PAGE_SCRIPT_MODULE: string;
  pageScript(): Promise<string>;
  pageScriptModule(script: string): string;
};

test('the committed page script is what esbuild makes of browser/ now', async () => {
  const fresh = pageScriptModule(await pageScript());
  assert.ok(
    readFileSync(PAGE_SCRIPT_MODULE, 'utf8') === fresh,
    `${PAGE_SCRIPT_MODULE} is stale: run \`${GENERATE_COMMAND}\` and commit it`,
  );
});

test('the module carries the script unchanged: backslashes, backticks and ${ survive its escaping', async () => {
  const script = await pageScript();
  assert.ok(TOPOLOGY_PAGE_SCRIPT === script, 'the constant differs from the bundle');
  assert.match(script, '\\u2026', 'an escape the script uses, kept as written');
  assert.match(script, '`', 'a template literal the script uses');
});

test('the script can be inlined: one IIFE, ASCII only, nothing that ends a <script> element', () => {
  assert.match(TOPOLOGY_PAGE_SCRIPT, /^"use strict";\n\(\(\) => \{\n/);
  assert.match(TOPOLOGY_PAGE_SCRIPT, /\n\}\)\(\);\n$/);
  const unprintable = [...TOPOLOGY_PAGE_SCRIPT].filter((c) => c !== '\n' && (c < ' ' || c > '~'));
  assert.equal(unprintable, [], 'printable ASCII and newlines only');
  assert.not.match(TOPOLOGY_PAGE_SCRIPT, /<\/script|<!--/i);
});

test.run();
