// docs/design.md §1 (the module map) names every file under src/, so the map
// a maintainer reads is the tree they find: a file added without a line there,
// or a line naming a file that was moved or deleted, fails here. A file is
// named by its path (`src/kube/rest.ts`) or, since base names are unique
// under src/ (tests/repo/layout.test.ts), by its base name in its folder's row.
// The rows run up the stack of layers, lowest first, so a reader meets what a
// file builds on before the file; the stack the section draws is the one
// tests/repo/layout.test.ts holds the imports to (support/layers.ts).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAYERS, layerOf } from './support/layers.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.ts$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** §1 of the design doc. */
function moduleMapSection(): string {
  const doc = readFileSync(join(ROOT, 'docs/design.md'), 'utf8');
  const start = doc.indexOf('\n## 1. Module map');
  const end = doc.indexOf('\n## 2.', start);
  assert.ok(start >= 0 && end > start, 'docs/design.md has a "## 1. Module map" section followed by "## 2."');
  return doc.slice(start, end);
}

/** The TypeScript file names (paths or base names) in backticks in §1 of the design doc. */
function namedInModuleMap(): string[] {
  const section = moduleMapSection();
  return [...section.matchAll(/`([^`\s]+\.ts)`/g)]
    .map((m) => m[1]!)
    .filter((n) => !/^(tests|testing|scripts)\//.test(n));
}

const files = sourceFiles('src');
const named = namedInModuleMap();

test('the map check sees the map and the tree (a check that sees neither would pass anything)', () => {
  assert.ok(named.includes('src/main.ts') && named.includes('reconciler.ts'));
  assert.ok(files.includes('src/main.ts') && files.length > 50);
});

test('every file under src/ is named in the module map of docs/design.md', () => {
  const byPath = new Set(named.filter((n) => n.startsWith('src/')));
  const byName = new Set(named.filter((n) => !n.includes('/')));
  assert.equal(
    files.filter((f) => !byPath.has(f) && !byName.has(basename(f))),
    [],
    "add a line (or a name in its folder's line) to docs/design.md §1",
  );
});

test('every file the module map names exists under src/', () => {
  const paths = new Set(files);
  const names = new Set(files.map((f) => basename(f)));
  const gone = named.filter((n) =>
    n.startsWith('src/') ? !paths.has(n) : n.includes('/') ? !files.some((f) => f.endsWith(`/${n}`)) : !names.has(n),
  );
  assert.equal(gone, [], 'docs/design.md §1 names files that no longer exist');
});

/** The first path of each row of §1's table, in order: the file or folder the row is about. */
function rowPaths(section: string): string[] {
  return [...section.matchAll(/^\| `(src\/[^`]*)`/gm)].map((m) => m[1]!);
}

/** The layers the diagram of §1 draws, lowest first: groups of paths joined by `→`. */
function drawnLayers(section: string): string[][] {
  const marker = section.indexOf('a diagram of the import layers');
  assert.ok(
    marker >= 0,
    'docs/design.md §1 draws the import layers in a fence marked "a diagram of the import layers"',
  );
  const open = section.indexOf('```\n', marker) + 4;
  const diagram = section.slice(open, section.indexOf('```', open));
  return diagram.split('→').map((layer) =>
    layer
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== ''),
  );
}

/** The rows that follow a row of a higher layer, each named with the highest row before it. */
function outOfOrder(paths: readonly string[]): string[] {
  const out: string[] = [];
  let highest: { path: string; layer: number } | undefined;
  for (const path of paths) {
    const layer = layerOf(path);
    assert.ok(layer !== undefined, `${path} is in no layer of tests/repo/support/layers.ts`);
    if (highest && layer < highest.layer) out.push(`${path} follows ${highest.path}, a higher layer`);
    if (!highest || layer > highest.layer) highest = { path, layer };
  }
  return out;
}

test('the layers §1 draws are the layers the layout test holds the imports to', () => {
  assert.equal(
    drawnLayers(moduleMapSection()),
    LAYERS.map((l) => [...l]),
  );
});

test('the rows of the module map run up the layers, lowest first', () => {
  const paths = rowPaths(moduleMapSection());
  assert.ok(paths.length > 40 && paths.includes('src/util/') && paths.includes('src/main.ts'));
  assert.equal(outOfOrder(paths), [], 'move each row to the rows of its layer in docs/design.md §1');
});

test('the order check finds a row out of layer order (a check that finds none would pass anything)', () => {
  assert.equal(
    outOfOrder(['src/util/', 'src/kube/rest.ts', 'src/main.ts', 'src/app/server.ts', 'src/kube/events.ts']),
    ['src/app/server.ts follows src/main.ts, a higher layer', 'src/kube/events.ts follows src/main.ts, a higher layer'],
  );
  assert.equal(outOfOrder(['src/util/', 'src/cmd/', 'src/app/server.ts', 'src/commands.ts']), []);
});

test.run();
