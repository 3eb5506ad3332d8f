// docs/design.md §1 (the module map) names every file under src/, so the map
// a maintainer reads is the tree they find: a file added without a line there,
// or a line naming a file that was moved or deleted, fails here. A file is
// named by its path (`src/kube/rest.ts`) or, since base names are unique
// under src/ (tests/repo/layout.test.ts), by its base name in its folder's row.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.ts$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** The TypeScript file names (paths or base names) in backticks in §1 of the design doc. */
function namedInModuleMap(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/design.md'), 'utf8');
  const start = doc.indexOf('\n## 1. Module map');
  const end = doc.indexOf('\n## 2.', start);
  assert.ok(start >= 0 && end > start, 'docs/design.md has a "## 1. Module map" section followed by "## 2."');
  const section = doc.slice(start, end);
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

test.run();
