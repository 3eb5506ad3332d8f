// docs/design.md's prose kept true to the tree, beside the module map that
// design-map.test.ts checks: its opening names every discovery source, the
// §2 data-flow picture draws each source's discoverer and the followers, and
// §6 numbers its rows as docs/differences-from-go.md numbers its items, each
// row naming test files that exist. A source folder added under
// src/hypernode/discovery/ fails here until the design says where it fits.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const design = readFileSync(join(ROOT, 'docs/design.md'), 'utf8');
const differences = readFileSync(join(ROOT, 'docs/differences-from-go.md'), 'utf8');

/** The folders of discovery/ that every source uses and none is (tests/repo/layout.test.ts holds the same two). */
const SHARED_DISCOVERY = ['fabric', 'remote'];
const sources = readdirSync(join(ROOT, 'src/hypernode/discovery'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && !SHARED_DISCOVERY.includes(e.name))
  .map((e) => e.name);

/** The text from `heading` to the next heading of the same level. */
function section(doc: string, heading: string): string {
  const start = doc.indexOf(`\n${heading}`);
  assert.ok(start >= 0, `a section "${heading}"`);
  const level = heading.split(' ')[0]!;
  const end = doc.indexOf(`\n${level} `, start + heading.length + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

const opening = design.slice(0, design.indexOf('\n## 1.'));
const dataFlow = section(design, '## 2. Data flow');
const picture = dataFlow.slice(dataFlow.indexOf('```'), dataFlow.indexOf('```', dataFlow.indexOf('```') + 3));

test('the checks see the sources and the picture (checks that see neither would pass anything)', () => {
  assert.ok(
    ['label', 'ufm', 'graph', 'lldp', 'ibnetdiscover'].every((s) => sources.includes(s)),
    `sources found: ${sources.join(', ')}`,
  );
  assert.ok(picture.includes('TopologyReconciler'));
});

test('the opening names every discovery source by its key', () => {
  assert.equal(
    sources.filter((s) => !opening.includes(`\`${s}\``)),
    [],
  );
});

test("the data-flow picture draws every source's discoverer and the followers", () => {
  assert.equal(
    sources.filter((s) => !new RegExp(`\\b${s} discoverer\\b`, 'i').test(picture)),
    [],
  );
  assert.match(picture, /followers/);
});

test('§6 numbers its rows as differences-from-go.md numbers its items, title word for title word', () => {
  const items = [...section(differences, '## Deliberate improvements').matchAll(/^(\d+)\. \*\*(\S+)/gm)].map(
    (m) => [Number(m[1]), m[2]!.toLowerCase()] as const,
  );
  const rows = [
    ...section(design, '## 6. Deliberate differences from Go, and their tests').matchAll(/^\| (\d+)\. (\S+)/gm),
  ].map((m) => [Number(m[1]), m[2]!.toLowerCase()] as const);
  assert.ok(items.length > 20);
  assert.equal(
    rows.map(([n]) => n),
    items.map(([n]) => n),
    'one row per item, in order',
  );
  const firstWord = (w: string) => w.replace(/[^\p{L}\p{N}-]/gu, '');
  assert.equal(
    rows
      .filter(([n, w]) => firstWord(w) !== firstWord(items.find(([i]) => i === n)?.[1] ?? ''))
      .map(([n, w]) => `${n}. ${w}`),
    [],
    'a row starts with the first word of its item',
  );
});

test('every test file §6 names exists', () => {
  const named = [
    ...section(design, '## 6. Deliberate differences from Go, and their tests').matchAll(/`(tests\/[^`]+\.ts)`/g),
  ].map((m) => m[1]!);
  assert.ok(named.length > 20);
  assert.equal(
    named.filter((f) => !existsSync(join(ROOT, f))),
    [],
  );
});

test.run();
