// The repository's dependency rules (docs/design.md §2), checked on the source
// text so that a new import that breaks one fails here, not in a review:
// src/util imports nothing of ours, src/kube knows nothing of HyperNodes,
// src never imports test infrastructure, scripts and testing never import
// tests/, and no file points at documents outside the repository.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function filesUnder(dir: string, pattern: RegExp): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, pattern));
    else if (pattern.test(entry.name)) out.push(path);
  }
  return out;
}

const SOURCE = /\.(ts|mjs|js)$/;

/** Repository-relative targets of the relative imports of `file`. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
  return specifiers.map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)));
}

function violations(dir: string, forbidden: (target: string, file: string) => boolean): string[] {
  return filesUnder(dir, SOURCE).flatMap((file) => importsOf(file).filter((t) => forbidden(t, file)).map((t) => `${file} imports ${t}`));
}

test('the rule finder sees imports (a check that sees none would pass anything)', () => {
  assert.ok(importsOf('src/main.ts').length > 0);
  assert.ok(violations('src/hypernode', (t) => t.startsWith('src/kube/')).length > 0, 'HyperNode logic does use the Kubernetes plumbing');
});

test('src/util imports nothing of ours outside src/util', () => {
  assert.equal(violations('src/util', (t) => !t.startsWith('src/util/')), []);
});

test('src/kube knows nothing of HyperNodes', () => {
  assert.equal(violations('src/kube', (t) => t.startsWith('src/hypernode/') || t.startsWith('src/app/') || t.startsWith('src/cmd/')), []);
});

test('src never imports tests/ or testing/', () => {
  assert.equal(violations('src', (t) => t.startsWith('tests/') || t.startsWith('testing/')), []);
});

test('scripts/ and testing/ never import tests/', () => {
  assert.equal([...violations('scripts', (t) => t.startsWith('tests/')), ...violations('testing', (t) => t.startsWith('tests/'))], []);
});

test('no source, test or doc points at specification files outside the repository', () => {
  const outside = /\.\.\/shared\/|shared\/spec\/|\b0\d-[a-z-]+\.md\b/;
  const files = [...filesUnder('src', SOURCE), ...filesUnder('scripts', SOURCE), ...filesUnder('testing', SOURCE), ...filesUnder('tests', SOURCE), ...filesUnder('docs', /\.md$/), 'README.md'];
  const hits = files.filter((f) => f !== 'tests/repo/layout.test.ts' && outside.test(readFileSync(join(ROOT, f), 'utf8')));
  assert.equal(hits, []);
});

test.run();
