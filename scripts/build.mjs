#!/usr/bin/env node
// Builds what we ship (docs/running.md):
//   dist/vc-hypernode-controller-manager.cjs (+ .map)  one CommonJS bundle (esbuild),
//                                                      runs on Node >= 20 and under `deno run`
//   dist/vc-hypernode-controller-manager               a Node single executable application
//                                                      for this machine, on the pinned Node
//   dist/vc-hypernode-controller-manager-linux-<arch>  the same for another architecture
//                                                      (--arch), on that architecture's Node
//                                                      of the same version (scripts/lib/targets.mjs)
// Works offline after `npm ci` (another architecture's Node is fetched once).
// Refuses to build when the topology view's committed browser script is
// older than its sources (scripts/generate-page-script.mjs writes it).
// Version, git SHA and build date are injected for --version (src/version.ts).
// The date is SOURCE_DATE_EPOCH, else the commit's time, never the wall clock:
// two builds of one commit are identical, and every executable reports what
// the bundle beside it reports (checked before the build succeeds).
//
// Usage: node scripts/build.mjs [--arch amd64|arm64 ...] [--out DIR]
//   defaults: this machine's architecture, dist/
// Env:   RELEASE_VER (default: package.json version), SOURCE_DATE_EPOCH

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { git, sourceDateEpoch } from './lib/source-date.mjs';
import { stalePageScript } from './lib/page-script.mjs';
import { makeSea } from './lib/sea.mjs';
import { NAME, executablePath, hostTarget, root, runner, targetFor } from './lib/targets.mjs';

const { values } = parseArgs({ options: { arch: { type: 'string', multiple: true }, out: { type: 'string' } } });
const dist = resolve(values.out ?? join(root, 'dist'));
const bundlePath = join(dist, `${NAME}.cjs`);
/**
 * Where esbuild is told the bundle goes, whatever --out says: source maps
 * name their sources relative to it, so a build into another directory
 * (tests/smoke/reproducible-build.test.ts) writes the same map.
 */
const mapBase = join(root, 'dist');
/** The npm packages inside the bundle (from esbuild's metafile), for the SBOM and the notices. */
const packagesPath = join(dist, `${NAME}.packages.json`);

/** Optional native add-ons that dependencies require inside try/catch. */
const OPTIONAL_NATIVE_MODULES = ['bufferutil', 'utf-8-validate', 'encoding', 'supports-color'];

function buildInfo() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  let gitSha = 'Not provided.';
  try {
    gitSha = git(['rev-parse', 'HEAD']);
  } catch {
    // Building from a source archive: no repository, nothing to report.
  }
  const epoch = sourceDateEpoch();
  // From a source archive without SOURCE_DATE_EPOCH there is no date that two builds would agree on.
  const built = epoch === undefined ? 'Not provided.' : formatBuildDate(new Date(epoch * 1000));
  return { version: process.env.RELEASE_VER || pkg.version, gitSha, built };
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
    b.onLoad({ filter: /.*/, namespace: 'url-from-runtime' }, () => ({
      contents: 'module.exports = { URL: globalThis.URL };',
      loader: 'js',
    }));
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
      const fromClientNode =
        args.path.startsWith('@kubernetes/client-node') || args.importer.includes('/@kubernetes/client-node/');
      if (!fromClientNode) return undefined;
      const resolved = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { resolving: true },
      });
      if (resolved.errors.length > 0 || resolved.external) return resolved;
      return { path: resolved.path, namespace: resolved.namespace, sideEffects: false };
    });
  },
};

/**
 * A plugin that gives `contents` (CommonJS) for `module` wherever a file whose
 * path contains `importer` imports it, in its own `namespace`: how the build
 * leaves out a dependency's dependency that our code never reaches.
 */
function standIn({ name, namespace, module, importer, contents, resolveDir }) {
  return {
    name,
    setup(b) {
      b.onResolve({ filter: module }, (args) =>
        args.importer.includes(importer) ? { path: args.path, namespace } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace }, () => ({ contents, loader: 'js', ...(resolveDir ? { resolveDir } : {}) }));
    },
  };
}

/**
 * client-node's KubeConfig builds an HTTP agent in applyToHTTPSOptions, a
 * SOCKS one when the cluster has a `socks…` proxy-url; src/kube/config.ts
 * keeps only the headers of those options and src/kube/transport.ts builds
 * its own agent, so the SOCKS agent is thrown away unused. Standing in an
 * empty class for it keeps socks-proxy-agent, socks and ip-address (~62 kB of
 * minified code) out of the bundle and changes nothing a request does.
 */
const clientNodeWithoutSocksAgent = standIn({
  name: 'client-node-without-socks-agent',
  namespace: 'client-node-no-socks',
  module: /^socks-proxy-agent$/,
  importer: '/@kubernetes/client-node/',
  contents:
    '/* The agent KubeConfig builds is discarded: src/kube/transport.ts has its own. */ class SocksProxyAgent {} module.exports = { SocksProxyAgent };',
});

/**
 * net-snmp requires its MIB-file parser at load time but calls it only from
 * ModuleStore, which the lldp source never creates (it walks numeric OIDs).
 * Leaving the parser out keeps ~12 kB of minified code out of the bundle; a
 * call into it would fail loudly instead of parsing.
 */
const netSnmpWithoutMibParser = standIn({
  name: 'net-snmp-without-mib-parser',
  namespace: 'net-snmp-no-mib',
  module: /^\.\/lib\/mib$/,
  importer: '/node_modules/net-snmp/',
  contents:
    "module.exports = () => { throw new Error('MIB files are not supported: this build walks numeric OIDs only'); };",
});

/**
 * prom-client requires @opentelemetry/api at load time but calls it only for
 * exemplars on the process CPU counter, which src/app/metrics.ts never
 * enables. Leaving the tracing API out keeps ~24 kB of minified code out of
 * the bundle; enabling exemplars would fail loudly instead of tracing.
 */
const promClientWithoutTracing = standIn({
  name: 'prom-client-without-tracing',
  namespace: 'prom-client-no-otel',
  module: /^@opentelemetry\/api$/,
  importer: '/node_modules/prom-client/',
  contents:
    "const off = () => { throw new Error('exemplars are not supported: this build leaves out the OpenTelemetry API'); }; module.exports = { trace: { getSpan: off }, context: { active: off } };",
});

/**
 * client-node's KubeConfig parses kubeconfig files with js-yaml's `load`, the
 * only js-yaml function the bundle reaches, while we ship the `yaml` package
 * for the discovery ConfigMap anyway. Both read YAML 1.2's core schema, which
 * is all a kubeconfig uses, so one parser serves both and ~40 kB of minified
 * code stay out of the bundle. src/util/syntax-error.ts reads either parser's
 * errors.
 */
const oneYamlParser = standIn({
  name: 'one-yaml-parser',
  namespace: 'js-yaml-on-yaml',
  module: /^js-yaml$/,
  importer: '/@kubernetes/client-node/',
  contents: "const { parse } = require('yaml'); module.exports = { load: (text) => parse(text) };",
  resolveDir: root,
});

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
    absWorkingDir: root,
    metafile: true,
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
    outfile: join(mapBase, 'commands.cjs'),
    sourcemap: 'inline',
    plugins: [
      missingOptionalModules,
      urlFromRuntime,
      clientNodeWithoutSocksAgent,
      clientNodeSideEffectFree,
      netSnmpWithoutMibParser,
      promClientWithoutTracing,
      oneYamlParser,
    ],
  });
  return { code: result.outputFiles[0].text, inputs: inputsInOutput(result.metafile) };
}

function prebundledLazyHalf(code) {
  // main.ts's own import specifier: main is the only module importing it.
  const filter = /^\.\/commands\.ts$/;
  return {
    name: 'prebundled-commands',
    setup(b) {
      b.onResolve({ filter }, (args) => ({ path: join(args.resolveDir, args.path), namespace: 'prebundled' }));
      b.onLoad({ filter: /.*/, namespace: 'prebundled' }, () => ({
        contents: code,
        loader: 'js',
        resolveDir: join(root, 'src'),
      }));
    },
  };
}

async function buildBundle(info) {
  const lazy = await bundleLazyHalf(info);
  const result = await build({
    ...commonOptions(info),
    entryPoints: [join(root, 'src/main.ts')],
    write: false,
    outfile: join(mapBase, basename(bundlePath)),
    minify: true,
    sourcemap: 'linked',
    legalComments: 'eof',
    plugins: [prebundledLazyHalf(lazy.code)],
  });
  for (const file of result.outputFiles) writeFileSync(join(dist, basename(file.path)), file.contents);
  writeFileSync(
    packagesPath,
    `${JSON.stringify(bundledPackages([...lazy.inputs, ...inputsInOutput(result.metafile)]), null, 2)}\n`,
  );
}

/** The input files that left code in the output (esbuild lists files it parsed and then shook out, too). */
function inputsInOutput(metafile) {
  return Object.values(metafile.outputs).flatMap((o) =>
    Object.entries(o.inputs)
      .filter(([, v]) => v.bytesInOutput > 0)
      .map(([path]) => path),
  );
}

/**
 * The npm packages whose files esbuild put into the bundle (from its input
 * paths), each once: `{ name, version, license, dir }`, sorted by name.
 */
function bundledPackages(inputs) {
  const dirs = new Set();
  for (const input of inputs) {
    const m = input.match(/^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//);
    if (m) dirs.add(m[1]);
  }
  const packages = [...dirs].map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const license =
      typeof pkg.license === 'string'
        ? pkg.license
        : (pkg.licenses ?? []).map((l) => l.type).join(' OR ') || 'NOASSERTION';
    return { name: pkg.name, version: pkg.version, license, dir };
  });
  return packages.sort((x, y) => x.name.localeCompare(y.name) || x.version.localeCompare(y.version));
}

/** Makes the executable for `target` from the bundle (scripts/lib/sea.mjs). */
function buildSea(target) {
  const out = executablePath(target, dist);
  makeSea({ target, main: bundlePath, out, config: join(dist, `.sea-config-${target.arch}.json`) });
  return out;
}

/**
 * --version without the runtime lines (the bundle runs on another Node than the executable), and what it wrote on
 * stderr.
 */
function versionOf(command, args) {
  const r = spawnSync(command, [...args, '--version'], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`${[command, ...args].join(' ')} --version exited ${r.status ?? r.signal}: ${r.stderr}`);
  const stdout = r.stdout
    .split('\n')
    .filter((line) => !line.startsWith('Go Version:') && !line.startsWith('Go OS/Arch:'))
    .join('\n');
  return { stdout, stderr: r.stderr };
}

/**
 * Fails the build when the executable reports another build than the bundle
 * it was made from, or says anything on stderr (V8 warns there when it
 * rejects the blob's code cache, and the start-up would be ~20 ms slower).
 */
function checkAgrees(target, executable) {
  const fromBundle = versionOf(process.execPath, [bundlePath]).stdout;
  const [command, ...args] = runner(target, executable);
  const fromExecutable = versionOf(command, args);
  if (fromExecutable.stdout !== fromBundle)
    throw new Error(
      `${relative(root, executable)} reports\n${fromExecutable.stdout}\nbut the bundle reports\n${fromBundle}`,
    );
  if (fromExecutable.stderr !== '')
    throw new Error(`${relative(root, executable)} --version wrote on stderr:\n${fromExecutable.stderr}`);
}

function sizes(executables) {
  const mb = (n) => `${(n / 1024 / 1024).toFixed(2)} MB`;
  const bundle = readFileSync(bundlePath);
  const rows = [
    [relative(process.cwd(), bundlePath), mb(bundle.length), `(${mb(gzipSync(bundle).length)} gzip)`],
    [`${relative(process.cwd(), bundlePath)}.map`, mb(statSync(`${bundlePath}.map`).size), ''],
  ];
  for (const e of executables) rows.push([relative(process.cwd(), e), mb(statSync(e).size), '']);
  for (const row of rows) console.log(`  ${row[0].padEnd(44)} ${row[1].padStart(10)} ${row[2]}`);
}

const targets = (values.arch ?? [hostTarget().arch]).map(targetFor);
const started = Date.now();
// The topology view's script is committed as text (scripts/lib/page-script.mjs): never ship one older than its sources.
const stale = await stalePageScript();
if (stale) {
  console.error(`build: ${stale}`);
  process.exit(1);
}
const info = buildInfo();
mkdirSync(dist, { recursive: true });
// A build that fails half-way must not leave an executable beside a bundle it was not made from.
for (const target of targets) rmSync(executablePath(target, dist), { force: true });
await buildBundle(info);
const executables = [];
for (const target of targets) {
  const t0 = Date.now();
  const executable = buildSea(target);
  checkAgrees(target, executable);
  executables.push(executable);
  console.log(`  linux/${target.arch} executable in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
console.log(
  `built ${NAME} ${info.version} (${info.gitSha.slice(0, 12)}, ${info.built} UTC) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
sizes(executables);
