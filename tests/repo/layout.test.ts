// The repository's dependency rules (docs/design.md §1), checked on the source
// text so that a new import that breaks one fails here, not in a review:
// src/ is a stack of layers and every import points down it (or stays in its
// layer), no import cycle exists anywhere, src/hypernode/ never reaches the
// process (src/app/) or the subcommands (src/cmd/), no discovery source
// imports another and the previews import none (shared plumbing lives in
// discovery/fabric/ and discovery/remote/, shared words in model/), the
// exports import no discovery code at all (they are fed the tree as kept), the
// subcommands (src/cmd/) never reach into discovery/fabric/, src never
// imports test infrastructure, scripts and testing never import tests/,
// every label key of ours is spelled in model/hypernode-labels.ts only and
// every exit code is named in src/exit-codes.ts only, the topology view's
// browser code imports nothing outside its folder and is typed apart, no
// file points at documents outside the repository, and the shape that keeps
// the tree navigable holds: src/hypernode/ has at most nine entries on top,
// no two files under src/ share a base name, and tests/ mirrors src/ (and
// testing/), so the test of a file is found from its path.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { layerOf } from './support/layers.ts';

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

/** Repository-relative targets of the relative imports (static, dynamic, re-exports) of `file`. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
  return specifiers.map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)));
}

function violations(dir: string, forbidden: (target: string, file: string) => boolean): string[] {
  return filesUnder(dir, SOURCE).flatMap((file) =>
    importsOf(file)
      .filter((t) => forbidden(t, file))
      .map((t) => `${file} imports ${t}`),
  );
}

/** Every import cycle among `files`, each as its files in order (Tarjan's strongly connected components). */
function importCycles(files: string[], imports: (file: string) => string[] = importsOf): string[][] {
  const graph = new Map(files.map((f) => [f, imports(f).filter((t) => t !== f)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}

test('the rule finder sees imports (a check that sees none would pass anything)', () => {
  assert.ok(importsOf('src/main.ts').length > 0);
  assert.ok(
    violations('src/hypernode', (t) => t.startsWith('src/kube/')).length > 0,
    'HyperNode logic does use the Kubernetes plumbing',
  );
});

test('the cycle finder finds a cycle and the layer table places every file of src/', () => {
  const edges: Record<string, string[]> = { 'a.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': ['a.ts'], 'd.ts': ['a.ts'] };
  assert.equal(
    importCycles(Object.keys(edges), (f) => edges[f] ?? []),
    [['a.ts', 'b.ts', 'c.ts']],
  );
  assert.equal(
    filesUnder('src', SOURCE).filter((f) => layerOf(f) === undefined),
    [],
    'a file outside every layer: add its folder to tests/repo/support/layers.ts and to docs/design.md §1',
  );
});

test('every import in src/ points down the layers or stays in its layer', () => {
  const upward = violations('src', (t, file) => t.startsWith('src/') && (layerOf(t) ?? -1) > (layerOf(file) ?? -1));
  assert.equal(upward, []);
});

test('no import cycles in src/, testing/ or scripts/ (type-only imports included: they tie modules as tightly)', () => {
  assert.equal(
    importCycles([
      ...filesUnder('src', SOURCE),
      ...filesUnder('testing', SOURCE),
      ...filesUnder('scripts', SOURCE),
    ]).map((c) => c.join(' <-> ')),
    [],
  );
});

test('src/hypernode imports neither the process (src/app) nor the subcommands (src/cmd)', () => {
  assert.equal(
    violations('src/hypernode', (t) => t.startsWith('src/app/') || t.startsWith('src/cmd/')),
    [],
  );
});

test('src/util imports nothing of ours outside src/util', () => {
  assert.equal(
    violations('src/util', (t) => !t.startsWith('src/util/')),
    [],
  );
});

/** The folders of discovery/ every source may use: they belong to none. */
const SHARED_DISCOVERY = ['fabric', 'remote'];

test('the fabric layer is source-neutral: no word of UFM, and no import of any source', () => {
  const sources = /\bufm\b/i;
  const mentions = filesUnder('src/hypernode/discovery/fabric', SOURCE).filter((f) =>
    sources.test(readFileSync(join(ROOT, f), 'utf8')),
  );
  assert.equal(mentions, []);
  const folder = (t: string) => /^src\/hypernode\/discovery\/([^/]+)\//.exec(t)?.[1];
  assert.equal(
    violations('src/hypernode/discovery/fabric', (t) => {
      const f = folder(t);
      return f !== undefined && !SHARED_DISCOVERY.includes(f);
    }),
    [],
  );
});

/**
 * Each discovery source's folder (discovery/label/, discovery/ufm/, ...): every folder of discovery/ but the shared
 * ones.
 */
function sourceFolders(): string[] {
  return readdirSync(join(ROOT, 'src/hypernode/discovery'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !SHARED_DISCOVERY.includes(e.name))
    .map((e) => `src/hypernode/discovery/${e.name}/`);
}

test('no discovery source imports another: what two sources share lives in a shared layer or model/', () => {
  const sources = sourceFolders();
  assert.ok(
    ['label', 'ufm', 'graph', 'lldp', 'ibnetdiscover'].every((s) => sources.includes(`src/hypernode/discovery/${s}/`)),
    `sources found: ${sources.join(', ')}`,
  );
  assert.equal(
    sources.flatMap((own) => violations(own, (t) => sources.some((other) => other !== own && t.startsWith(other)))),
    [],
  );
});

test("every source names its common jobs alike: <source>-config.ts, -discoverer.ts, a fabric source's -fabric-graph.ts", () => {
  const missing = sourceFolders().flatMap((folder) => {
    const source = basename(folder);
    const roles = source === 'label' ? ['config', 'discoverer'] : ['config', 'discoverer', 'fabric-graph'];
    const files = readdirSync(join(ROOT, folder));
    return roles.map((role) => `${folder}${source}-${role}.ts`).filter((f) => !files.includes(basename(f)));
  });
  assert.equal(missing, [], 'docs/design.md §1 names the file of each job a source has');
  const otherGraphs = sourceFolders().flatMap((folder) =>
    filesUnder(folder, /graph\.ts$/).filter((f) => basename(f) !== `${basename(folder)}-fabric-graph.ts`),
  );
  assert.equal(otherGraphs, [], 'what a source read, made into a FabricGraph, is <source>-fabric-graph.ts');
});

test('the previews read no source internals: only model/, the shared layers and the discovery manager and registry', () => {
  const sources = sourceFolders();
  assert.equal(
    violations('src/hypernode/preview', (t) => sources.some((s) => t.startsWith(s))),
    [],
  );
});

test('the exports know nothing of sources: nothing under exports/ imports discovery/', () => {
  assert.ok(filesUnder('src/hypernode/exports', SOURCE).length > 0, 'src/hypernode/exports/ holds the exports');
  assert.equal(
    violations('src/hypernode/exports', (t) => t.startsWith('src/hypernode/discovery/')),
    [],
    'an export is fed the tree as kept (reconcile/kept-topology.ts); what it needs of a source is handed in by its caller',
  );
});

test('the subcommands reach discovery through the sources and the registry, never the fabric layer', () => {
  assert.equal(
    violations('src/cmd', (t) => t.startsWith('src/hypernode/discovery/fabric/')),
    [],
    'how loud a report is, is chosen where it is written (DiscoveryProblems), not recognised by a subcommand',
  );
});

test('the reconcile core is given the configuration: nothing under reconcile/ loads the ConfigMap', () => {
  const loaders = filesUnder('src/hypernode/reconcile', SOURCE).filter((f) =>
    /\bloadConfig\b/.test(readFileSync(join(ROOT, f), 'utf8')),
  );
  assert.equal(loaders, [], 'followers receive what the discovery manager applied (reconcile/follower.ts)');
});

test('every volcano.sh/ label key src/ writes or reads is defined in model/hypernode-labels.ts', () => {
  const home = 'src/hypernode/model/hypernode-labels.ts';
  assert.match(readFileSync(join(ROOT, home), 'utf8'), /'volcano\.sh\/network-topology-source'/);
  const elsewhere = filesUnder('src', SOURCE).filter(
    (f) => f !== home && /['"]volcano\.sh\//.test(readFileSync(join(ROOT, f), 'utf8')),
  );
  assert.equal(elsewhere, []);
});

test('every exit code src/ ends with is named in src/exit-codes.ts, and only there', () => {
  const home = 'src/exit-codes.ts';
  assert.match(readFileSync(join(ROOT, home), 'utf8'), /export const EXIT_FAILURE = 1;/);
  // A code defined again (`const EXIT_ERROR = 1`), or a bare number given to an exit.
  const own = /\b(?:const|let)\s+\w*EXIT\w*\s*=\s*\d|\bexit\(\s*\d+\s*\)|\bexitCode\s*=\s*\d/;
  const elsewhere = filesUnder('src', SOURCE).filter(
    (f) => f !== home && own.test(readFileSync(join(ROOT, f), 'utf8')),
  );
  assert.equal(elsewhere, [], 'import the code from src/exit-codes.ts (docs/design.md §3.4)');
});

test('src/kube knows nothing of HyperNodes', () => {
  assert.equal(
    violations(
      'src/kube',
      (t) => t.startsWith('src/hypernode/') || t.startsWith('src/app/') || t.startsWith('src/cmd/'),
    ),
    [],
  );
  const mentions = filesUnder('src/kube', SOURCE).filter((f) => /hypernode/i.test(readFileSync(join(ROOT, f), 'utf8')));
  assert.equal(mentions, []);
});

test('src never imports tests/ or testing/', () => {
  assert.equal(
    violations('src', (t) => t.startsWith('tests/') || t.startsWith('testing/')),
    [],
  );
});

test('scripts/ and testing/ never import tests/', () => {
  assert.equal(
    [...violations('scripts', (t) => t.startsWith('tests/')), ...violations('testing', (t) => t.startsWith('tests/'))],
    [],
  );
});

/** The topology view's browser code: it runs in a browser, typed with the DOM (tsconfig.browser.json). */
const BROWSER = 'src/hypernode/exports/view/browser/';

/** Every module specifier `file` imports, as written (relative or not). */
function specifiersOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
}

test("the view's browser code imports nothing outside browser/: no Node module, no package, no server code", () => {
  const files = filesUnder(BROWSER, SOURCE);
  assert.ok(
    files.some((f) => specifiersOf(f).length > 0),
    'the check sees the browser code import its parts',
  );
  const outside = files.flatMap((file) =>
    specifiersOf(file)
      .filter((s) => !s.startsWith('.') || !relative(ROOT, resolve(ROOT, dirname(file), s)).startsWith(BROWSER))
      .map((s) => `${file} imports ${s}`),
  );
  assert.equal(outside, [], 'the browser has no Node and no server code: what both sides share is a type in browser/');
});

test('tsconfig.json leaves the browser code to tsconfig.browser.json, which types it with the DOM and without Node', () => {
  const main = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'));
  const browser = JSON.parse(readFileSync(join(ROOT, 'tsconfig.browser.json'), 'utf8'));
  assert.ok((main.exclude as string[]).includes(`${BROWSER}**`));
  assert.equal(browser.include, [`${BROWSER}**/*.ts`]);
  assert.ok((browser.compilerOptions.lib as string[]).includes('DOM'));
  assert.equal(browser.compilerOptions.types, [], 'no Node types: an import of node:fs does not type-check');
});

test('src/hypernode has at most nine entries on top', () => {
  const entries = readdirSync(join(ROOT, 'src/hypernode')).sort();
  assert.ok(entries.length <= 9, `src/hypernode holds ${entries.length} entries: ${entries.join(', ')}`);
});

/** The suites beside the mirror (docs/design.md §8): each tests the product or the repository as a whole. */
const SUITES = ['tests/e2e', 'tests/security', 'tests/smoke', 'tests/deploy', 'tests/repo', 'tests/support'];

/** The folders under tests/ that hold a test file, and the folder of src/ or testing/ each must name. */
function testFolders(): { folder: string; mirrors: string }[] {
  const folders = new Set(filesUnder('tests', /\.test\.ts$/).map((f) => dirname(f)));
  return [...folders]
    .filter((f) => !SUITES.some((s) => f === s || f.startsWith(`${s}/`)))
    .map((folder) => {
      const rest = relative('tests', folder);
      const mirrors = rest === '' ? 'src' : rest.startsWith('testing') ? rest : join('src', rest);
      return { folder, mirrors };
    });
}

function isFolder(path: string): boolean {
  try {
    return readdirSync(join(ROOT, path)) !== undefined;
  } catch {
    return false;
  }
}

test('tests/ mirrors src/: every folder holding a test names a folder of src/ (or testing/), or is a suite beside them', () => {
  const folders = testFolders();
  assert.ok(
    folders.some((f) => f.folder === 'tests/hypernode/discovery/label/profile'),
    'the check sees the mirrored test folders',
  );
  assert.ok(!isFolder('src/hypernode/no-such-wing'), 'the check tells a missing folder');
  const strays = folders.filter((f) => !isFolder(f.mirrors)).map((f) => `${f.folder} names no ${f.mirrors}/`);
  assert.equal(strays, [], 'move the tests with git mv to the folder mirroring the code they test (docs/design.md §8)');
});

test('no two files under src/ share a base name', () => {
  const byName = new Map<string, string[]>();
  for (const f of filesUnder('src', SOURCE)) byName.set(basename(f), [...(byName.get(basename(f)) ?? []), f]);
  assert.equal(
    [...byName.values()].filter((paths) => paths.length > 1),
    [],
  );
});

test('no source, test or doc points at specification files outside the repository', () => {
  const outside = /\.\.\/shared\/|shared\/spec\/|\b\d\d-[a-z-]+\.md\b/;
  const files = [
    ...filesUnder('src', SOURCE),
    ...filesUnder('scripts', SOURCE),
    ...filesUnder('testing', SOURCE),
    ...filesUnder('tests', SOURCE),
    ...filesUnder('docs', /\.md$/),
    'README.md',
  ];
  const hits = files.filter(
    (f) => f !== 'tests/repo/layout.test.ts' && outside.test(readFileSync(join(ROOT, f), 'utf8')),
  );
  assert.equal(hits, []);
});

test.run();
