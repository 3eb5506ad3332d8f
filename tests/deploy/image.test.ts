// The release's OCI image, run the way a container runtime would: its layers
// unpacked with tar into a root filesystem, mounted read-only, /proc limited to
// the process's own entries (as ProcSubset=pid does), entered with
// `unshare --pid` + `chroot` as the image's USER. The executable must print its
// version there, and run in-cluster style against the API server stand-in with
// only a service-account token, the CA, the manifests' RBAC and their example
// discovery ConfigMap (creating a HyperNode), then exit 0 on SIGTERM as PID 1. Needs root and util-linux; the built executable in dist/.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, parseAllDocuments } from 'yaml';
import { startApiServer, type ApiServer, type PolicyRule } from '../../testing/apiserver/index.ts';
import { waitFor, within } from '../../testing/wait.ts';
import { CHART_ARGS, NAMESPACE } from './support/chart.ts';
import { IMAGE_ARCHIVE, NAME, repoRoot } from './support/releases.ts';
import { freePorts } from '../../testing/ports.ts';
import { missingCommand, missingRoot, testNeeding } from './support/skip.ts';

const dist = join(repoRoot, 'dist');
const executable = join(dist, NAME);
const SA_USER = `system:serviceaccount:${NAMESPACE}:volcano-hypernode-controller`;
const SA_TOKEN = 'image-test-service-account-token';
const SA_DIR = 'var/run/secrets/kubernetes.io/serviceaccount';

/** Why the image cannot be entered here, if it cannot. */
const missing = missingRoot() ?? missingCommand('unshare', 'util-linux') ?? missingCommand('chroot', 'coreutils') ?? missingCommand('mount');
const imageTest = testNeeding(missing);

const work = mkdtempSync(join(tmpdir(), 'image-test-'));
const rootfs = join(work, 'rootfs');
type Json = Record<string, any>; // OCI JSON documents, read loosely on purpose
let imageConfig: Json = {};

function readJson(path: string): Json {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Makes a release (building the image) from the built executable, and unpacks the image's layers into `rootfs`. */
function releaseAndUnpack(): void {
  assert.ok(existsSync(executable), `${executable} is missing: run \`npm run build\` first`);
  const stagedDist = join(work, 'dist');
  mkdirSync(stagedDist);
  for (const f of [NAME, `${NAME}.cjs`, `${NAME}.cjs.map`]) copyFileSync(join(dist, f), join(stagedDist, f));
  const out = execFileSync(process.execPath, [join(repoRoot, 'scripts/release.mjs'), '--dist', stagedDist], { encoding: 'utf8', timeout: 300_000 });
  console.log(out.trim());
  const release = join(stagedDist, 'release');
  const archive = IMAGE_ARCHIVE;
  assert.ok(existsSync(join(release, archive)), 'the release holds the OCI archive');
  execFileSync('sha256sum', ['--check', '--strict', '--quiet', 'SHA256SUMS'], { cwd: release });

  const layout = join(work, 'layout');
  mkdirSync(layout);
  execFileSync('tar', ['-xf', join(release, archive), '-C', layout]);
  const blob = (digest: string) => join(layout, 'blobs/sha256', digest.replace(/^sha256:/, ''));
  const index = readJson(join(layout, 'index.json'));
  assert.is(index.manifests.length, 1);
  const manifest = readJson(blob(index.manifests[0].digest));
  imageConfig = readJson(blob(manifest.config.digest));
  mkdirSync(rootfs);
  for (const layer of manifest.layers) execFileSync('tar', ['-xzf', blob(layer.digest), '-C', rootfs]);
  const layerBytes = manifest.layers.reduce((n: number, l: Json) => n + l.size, 0);
  console.log(`image: ${(statSync(join(release, archive)).size / 1048576).toFixed(1)} MiB archive, ${(layerBytes / 1048576).toFixed(1)} MiB compressed layer`);
  // A runtime mounts /proc itself; the image carries no directory for it.
  assert.not.ok(existsSync(join(rootfs, 'proc')));
  mkdirSync(join(rootfs, 'proc'));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => statSync(join(dir, p)).isFile())
    .map((p) => `/${p}`)
    .sort();
}

/**
 * Starts the image's entrypoint in a new PID and mount namespace: the root
 * filesystem bind-mounted read-only, /proc with only the process's own entries,
 * chroot as the image's USER. Returns the unshare process (its exit status is the entrypoint's).
 */
function runInImage(args: string[], env: Record<string, string>): ChildProcess {
  const [uid, gid = uid] = String(imageConfig.config.User).split(':');
  const script = [
    'set -e',
    'mount --bind "$ROOTFS" "$ROOTFS"',
    'mount -o remount,bind,ro "$ROOTFS"',
    'mount -t proc -o hidepid=invisible,subset=pid proc "$ROOTFS/proc"',
    `exec chroot --userspec=${uid}:${gid} "$ROOTFS" "$@"`,
  ].join('\n');
  return spawn('unshare', ['--pid', '--fork', '--kill-child', '--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', ...imageConfig.config.Entrypoint, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', ROOTFS: rootfs, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function collect(child: ChildProcess): { output: () => string; exit: Promise<number> } {
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exit = new Promise<number>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  return { output: () => out, exit };
}

/** The entrypoint's PID as the host sees it: unshare's only child. */
function entrypointPid(unsharePid: number): number | undefined {
  const children = readFileSync(`/proc/${unsharePid}/task/${unsharePid}/children`, 'utf8').trim();
  const pid = Number(children.split(' ')[0]);
  if (!pid) return undefined;
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(NAME) ? pid : undefined;
}

/** The ClusterRole and Role rules of deploy/kubernetes/rbac.yaml as the stand-in's grant. */
function manifestGrant(): PolicyRule[] {
  const docs = parseAllDocuments(readFileSync(join(repoRoot, 'deploy/kubernetes/rbac.yaml'), 'utf8')).map((d) => d.toJS() as Json);
  return docs.flatMap((d) => {
    if (d.kind === 'ClusterRole') return d.rules as PolicyRule[];
    if (d.kind === 'Role') return (d.rules as PolicyRule[]).map((r) => ({ ...r, namespaces: [d.metadata.namespace] }));
    return [];
  });
}

test.before(() => {
  if (!missing) releaseAndUnpack();
});

test.after(() => rmSync(work, { recursive: true, force: true }));

imageTest('the image holds only the executable and the libraries it links, and runs it as user 1000 with no shell', () => {
  assert.equal(imageConfig.config.Entrypoint, [`/${NAME}`]);
  assert.is(imageConfig.config.Cmd, undefined);
  assert.match(String(imageConfig.config.User), /^1000(:1000)?$/);
  assert.is(imageConfig.os, 'linux');
  const libs = execFileSync('ldd', [executable], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.match(/(\/\S+)\s+\(0x/)?.[1])
    .filter((p): p is string => Boolean(p));
  assert.equal(filesUnder(rootfs), [`/${NAME}`, ...libs].sort());
  assert.not.ok(existsSync(join(rootfs, 'bin/sh')));
});

imageTest('inside the image the executable prints its version as PID 1 of its own namespace', async () => {
  const run = collect(runInImage(['--version'], {}));
  const code = await within(run.exit, 30_000, 'the version run');
  assert.is(code, 0, run.output());
  const lines = run.output().trim().split('\n');
  assert.is(lines.length, 6, run.output());
  assert.is(lines[0], 'API Version: v1alpha1');
  assert.match(lines[1]!, /^Version: \S+/);
  assert.match(lines[5]!, /^Go OS\/Arch: linux\/(amd64|arm64)$/);
});

imageTest('in-cluster style: service-account token and CA only, the chart arguments and the manifests RBAC and ConfigMap: discovers a rack, exits 0 on SIGTERM', async () => {
  const api: ApiServer = await startApiServer({ namespaces: [NAMESPACE], users: { [SA_USER]: { grant: manifestGrant(), token: SA_TOKEN } } });
  let child: ChildProcess | undefined;
  try {
    const saDir = join(rootfs, SA_DIR);
    mkdirSync(saDir, { recursive: true });
    writeFileSync(join(saDir, 'token'), SA_TOKEN, { mode: 0o644 });
    copyFileSync(api.caFile, join(saDir, 'ca.crt'));
    writeFileSync(join(saDir, 'namespace'), NAMESPACE, { mode: 0o644 });
    // The example discovery ConfigMap of the manifests, and two nodes in one rack.
    api.store.create(parse(readFileSync(join(repoRoot, 'deploy/kubernetes/discovery-configmap.yaml'), 'utf8')));
    for (const name of ['node-a', 'node-b']) {
      api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'volcano.sh/tor': 'rack-1', 'kubernetes.io/hostname': name } } });
    }
    const [healthz, metrics] = await freePorts(2);
    child = runInImage(
      [
        ...CHART_ARGS,
        '--leader-elect=false',
        '--enable-healthz=true',
        `--healthz-address=127.0.0.1:${healthz}`,
        `--listen-address=127.0.0.1:${metrics}`,
      ],
      { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(api.port), KUBE_POD_NAMESPACE: NAMESPACE, HELM_RELEASE_NAME: 'volcano' },
    );
    const run = collect(child);
    const what = (w: string) => ({ what: `${w}; output so far:\n${run.output()}`, timeoutMs: 30_000 });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${healthz}/healthz`)).status === 200, what('/healthz to answer 200'));
    const listed = (resource: string) => api.requests.all({ user: SA_USER, verb: 'list', resource }).some((r) => r.code === 200);
    await waitFor(() => listed('nodes') && listed('hypernodes') && listed('configmaps'), what('lists of nodes, hypernodes and configmaps'));
    const hypernode = await waitFor(() => api.store.list('hypernodes').find((h) => h.status?.nodeCount === 2), what('a HyperNode for rack-1 with nodeCount 2'));
    assert.equal(hypernode.metadata.labels, { 'volcano.sh/network-topology-source': 'label', 'volcano.sh/tor': 'rack-1' });
    assert.match(hypernode.metadata.name, /^hypernode-rack-tier1-[a-z0-9]{5}$/);
    assert.equal(
      api.requests.all((r) => r.code === 401 || r.code === 403).map((r) => `${r.code} ${r.verb} ${r.resource} ${r.namespace}`),
      [],
      'every call is authenticated by the token and allowed by the manifests RBAC',
    );
    const metricsText = await (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
    assert.match(metricsText, /^process_resident_memory_bytes [1-9]/m, 'process metrics read /proc/self');

    const pid = await waitFor(() => entrypointPid(child!.pid!), { what: 'the entrypoint process' });
    process.kill(pid, 'SIGTERM');
    const code = await within(run.exit, 20_000, 'shutdown after SIGTERM');
    assert.is(code, 0, run.output());
    child = undefined;
  } finally {
    if (child?.pid) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {}
    }
    await api.close();
  }
});

test.run();
