// The release's multi-arch OCI image (built here from the current sources for
// amd64 and, where qemu-user-static and the arm64 libraries are installed,
// arm64): its index, each platform's files, dpkg metadata and SBOM, and each
// platform run the way a container runtime would: its layers
// unpacked with tar into a root filesystem, mounted read-only, /proc limited to
// the process's own entries (as ProcSubset=pid does), entered with
// `unshare --pid` + `chroot` as the image's USER. The executable must print its
// version there, and run in-cluster style against the API server stand-in with
// only a service-account token, the CA, the manifests' RBAC and their example
// discovery ConfigMap (creating a HyperNode), then exit 0 on SIGTERM as PID 1. The arm64 image prints its version
// under qemu, placed inside its root filesystem. Needs root and util-linux.

import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, parseAllDocuments } from 'yaml';
import { startApiServer, type ApiServer, type PolicyRule } from '../../testing/apiserver/index.ts';
import { waitFor, within } from '../../testing/wait.ts';
import { CHART_ARGS, NAMESPACE } from './support/chart.ts';
import { IMAGE_ARCHIVE, NAME, repoRoot } from './support/releases.ts';
import { contained, packagesByPurl, readSpdx, spdxSchemaErrors } from './support/spdx.ts';
// @ts-expect-error: plain JavaScript build helpers, no type declarations
import { TARGETS, hostTarget, missingEmulation, runner } from '../../scripts/lib/targets.mjs';
import { freePorts } from '../../testing/ports.ts';
import { missingCommand, missingRoot, testNeeding } from '../support/skip.ts';

const SA_USER = `system:serviceaccount:${NAMESPACE}:volcano-hypernode-controller`;
const SA_TOKEN = 'image-test-service-account-token';
const SA_DIR = 'var/run/secrets/kubernetes.io/serviceaccount';

/** Why the image cannot be entered here, if it cannot. */
const missing =
  missingRoot() ??
  missingCommand('unshare', 'util-linux') ??
  missingCommand('chroot', 'coreutils') ??
  missingCommand('mount');
const imageTest = testNeeding(missing);
/** Why the arm64 image cannot be built and run here (the amd64 one is tested regardless). */
const missingArm64 =
  missing ??
  (hostTarget().arch === 'arm64'
    ? undefined
    : (missingEmulation(TARGETS.arm64) ?? missingCommand('aarch64-linux-gnu-strip', 'binutils-aarch64-linux-gnu')));
const arm64Test = testNeeding(missingArm64);
const ARCHES_BUILT = missingArm64 ? [hostTarget().arch] : ['amd64', 'arm64'];

const work = mkdtempSync(join(tmpdir(), 'image-test-'));
const release = join(work, 'dist/release');
type Json = Record<string, any>; // OCI JSON documents, read loosely on purpose
/** Per architecture: the image config and the unpacked root filesystem. */
const images: Record<string, { config: Json; rootfs: string }> = {};
let imageConfig: Json = {};
let rootfs = '';

function readJson(path: string): Json {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/**
 * Builds the executables for the architectures this machine can run, makes a release with the image, and unpacks each
 * platform's layers.
 */
function releaseAndUnpack(): void {
  const stagedDist = join(work, 'dist');
  const started = Date.now();
  execFileSync(
    process.execPath,
    [join(repoRoot, 'scripts/build.mjs'), ...ARCHES_BUILT.flatMap((a) => ['--arch', a]), '--out', stagedDist],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 300_000,
    },
  );
  const out = execFileSync(
    process.execPath,
    [join(repoRoot, 'scripts/release.mjs'), '--dist', stagedDist, '--unsigned'],
    {
      encoding: 'utf8',
      timeout: 300_000,
    },
  );
  console.log(
    `${out.trim()}\n(build and release of ${ARCHES_BUILT.join(' and ')}: ${((Date.now() - started) / 1000).toFixed(0)} s)`,
  );
  assert.ok(existsSync(join(release, IMAGE_ARCHIVE)), 'the release holds the OCI archive');
  execFileSync('sha256sum', ['--check', '--strict', '--quiet', 'SHA256SUMS'], { cwd: release });

  const layout = join(work, 'layout');
  mkdirSync(layout);
  execFileSync('tar', ['-xf', join(release, IMAGE_ARCHIVE), '-C', layout]);
  const blob = (digest: string) => join(layout, 'blobs/sha256', digest.replace(/^sha256:/, ''));
  const index = readJson(join(layout, 'index.json'));
  assert.is(index.mediaType, 'application/vnd.oci.image.index.v1+json');
  assert.equal(
    index.manifests.map((m: Json) => m.platform),
    ARCHES_BUILT.map((architecture) => ({ architecture, os: 'linux' })),
  );
  for (const descriptor of index.manifests) {
    const arch = descriptor.platform.architecture as string;
    const manifest = readJson(blob(descriptor.digest));
    const config = readJson(blob(manifest.config.digest));
    assert.is(config.architecture, arch);
    const dir = join(work, `rootfs-${arch}`);
    mkdirSync(dir);
    for (const layer of manifest.layers) execFileSync('tar', ['-xzf', blob(layer.digest), '-C', dir]);
    const layerBytes = manifest.layers.reduce((n: number, l: Json) => n + l.size, 0);
    console.log(`image linux/${arch}: ${(layerBytes / 1048576).toFixed(1)} MiB compressed layer`);
    // A runtime mounts /proc itself; the image carries no directory for it.
    assert.not.ok(existsSync(join(dir, 'proc')));
    mkdirSync(join(dir, 'proc'));
    images[arch] = { config, rootfs: dir };
  }
  console.log(`image archive: ${(statSync(join(release, IMAGE_ARCHIVE)).size / 1048576).toFixed(1)} MiB`);
  ({ config: imageConfig, rootfs } = images[hostTarget().arch]!);
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
 * chroot as the image's USER. `through` runs the entrypoint through a program
 * placed in the root filesystem (qemu for another architecture). Returns the
 * unshare process (its exit status is the entrypoint's).
 */
function runInImage(
  args: string[],
  env: Record<string, string>,
  image = { config: imageConfig, rootfs },
  through: string[] = [],
): ChildProcess {
  const [uid, gid = uid] = String(image.config.config.User).split(':');
  const script = [
    'set -e',
    'mount --bind "$ROOTFS" "$ROOTFS"',
    'mount -o remount,bind,ro "$ROOTFS"',
    'mount -t proc -o hidepid=invisible,subset=pid proc "$ROOTFS/proc"',
    `exec chroot --userspec=${uid}:${gid} "$ROOTFS" "$@"`,
  ].join('\n');
  return spawn(
    'unshare',
    [
      '--pid',
      '--fork',
      '--kill-child',
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      script,
      'sh',
      ...through,
      ...image.config.config.Entrypoint,
      ...args,
    ],
    {
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', ROOTFS: image.rootfs, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

function collect(child: ChildProcess): { output: () => string; exit: Promise<number> } {
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exit = new Promise<number>((resolve) =>
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1))),
  );
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
  const docs = parseAllDocuments(readFileSync(join(repoRoot, 'deploy/kubernetes/rbac.yaml'), 'utf8')).map(
    (d) => d.toJS() as Json,
  );
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

/** The loader's list of libraries for the executable of `arch` (under qemu for another architecture). */
function linkedLibraries(arch: string): string[] {
  const target = TARGETS[arch as 'amd64' | 'arm64'];
  const [cmd, ...pre] = runner(target, target.loader);
  return execFileSync(cmd, [...pre, '--list', join(images[arch]!.rootfs, NAME)], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.match(/(\/\S+)\s+\(0x/)?.[1])
    .filter((p): p is string => Boolean(p));
}

/** The owning Debian packages of the image's libraries, per the dpkg database of this machine. */
function owners(libs: string[]): string[] {
  const owner = (lib: string) => {
    for (const path of [lib, realpathSync(lib)]) {
      const r = spawnSync('dpkg-query', ['-S', path], { encoding: 'utf8' });
      if (r.status === 0) return r.stdout.split(':')[0]!;
    }
    throw new Error(`no Debian package owns ${lib}`);
  };
  return [...new Set(libs.map(owner))].sort();
}

imageTest(
  'each image holds the executable, the libraries it links, their dpkg metadata and copyrights, our licence and notices; user 1000, no shell',
  () => {
    for (const arch of ARCHES_BUILT) {
      const { config, rootfs: dir } = images[arch]!;
      assert.equal(config.config.Entrypoint, [`/${NAME}`]);
      assert.is(config.config.Cmd, undefined);
      assert.match(String(config.config.User), /^1000(:1000)?$/);
      assert.is(config.os, 'linux');
      const libs = linkedLibraries(arch);
      const debs = owners(libs);
      assert.equal(
        filesUnder(dir),
        [
          `/${NAME}`,
          ...libs,
          ...debs.map((d) => `/var/lib/dpkg/status.d/${d}`),
          ...debs.map((d) => `/usr/share/doc/${d}/copyright`),
          `/usr/share/doc/${NAME}/LICENSE`,
          `/usr/share/doc/${NAME}/THIRD_PARTY_NOTICES`,
        ].sort(),
        arch,
      );
      assert.not.ok(existsSync(join(dir, 'bin/sh')));
      for (const deb of debs) {
        const status = readFileSync(join(dir, 'var/lib/dpkg/status.d', deb), 'utf8');
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a dpkg-query format field, not a template
        const installed = execFileSync('dpkg-query', ['-W', '-f=${Version} ${source:Package}', `${deb}:${arch}`], {
          encoding: 'utf8',
        }).split(' ');
        assert.ok(status.startsWith(`Package: ${deb}\n`), status);
        assert.match(status, new RegExp(`^Architecture: ${arch}$`, 'm'));
        assert.ok(status.includes(`\nVersion: ${installed[0]}\n`), status);
        assert.match(status, new RegExp(`^Source: ${installed[1]}( |$)`, 'm'));
        assert.match(status, /^Status: install ok installed$/m);
      }
      assert.is(
        readFileSync(join(dir, `usr/share/doc/${NAME}/THIRD_PARTY_NOTICES`), 'utf8'),
        readFileSync(join(release, 'THIRD_PARTY_NOTICES'), 'utf8'),
      );
    }
  },
);

imageTest(
  'each image SBOM is valid SPDX 2.3 and lists the executable, its Node.js and npm packages, and the Debian packages of the image',
  () => {
    for (const arch of ARCHES_BUILT) {
      const doc = readSpdx(join(release, `${NAME}-image-linux-${arch}.spdx.json`));
      assert.equal(spdxSchemaErrors(doc), [], arch);
      const debs = packagesByPurl(doc, 'deb');
      const inImage = readdirSync(join(images[arch]!.rootfs, 'var/lib/dpkg/status.d')).sort();
      assert.equal([...debs.values()].map((p) => p.name).sort(), inImage, arch);
      for (const [key, p] of debs) {
        const purl = p.externalRefs[0].referenceLocator as string;
        assert.ok(purl.includes(`?arch=${arch}&distro=debian-`), `${key}: ${purl}`);
      }
      const [imageId] = doc.documentDescribes;
      const exeSbom = readSpdx(join(release, `${NAME}-linux-${arch}.spdx.json`));
      const exe = doc.packages.find((p: Json) => p.name === NAME && p.primaryPackagePurpose === 'APPLICATION');
      assert.equal(
        exe.checksums,
        exeSbom.packages.find((p: Json) => p.SPDXID === exeSbom.documentDescribes[0]).checksums,
      );
      assert.equal(contained(doc, imageId).sort(), [exe.SPDXID, ...[...debs.values()].map((p) => p.SPDXID)].sort());
      assert.is(packagesByPurl(doc, 'npm').size, packagesByPurl(exeSbom, 'npm').size);
    }
  },
);

imageTest('inside the image the executable prints its version as PID 1 of its own namespace', async () => {
  const run = collect(runInImage(['--version'], {}));
  const code = await within(run.exit, 30_000, 'the version run');
  assert.is(code, 0, run.output());
  const lines = run.output().trim().split('\n');
  assert.is(lines.length, 6, run.output());
  assert.is(lines[0], 'API Version: v1alpha1');
  assert.match(lines[1]!, /^Version: \S+/);
  assert.is(lines[5], `Go OS/Arch: linux/${hostTarget().arch}`);
});

arm64Test('the arm64 image runs under qemu with only its own libraries: --version names linux/arm64', async () => {
  const image = images.arm64!;
  // No binfmt_misc here: qemu, a static binary, is put into the root filesystem and runs the entrypoint.
  copyFileSync(
    execFileSync('sh', ['-c', `command -v ${TARGETS.arm64.qemu}`], { encoding: 'utf8' }).trim(),
    join(image.rootfs, 'qemu'),
  );
  const run = collect(runInImage(['--version'], {}, image, ['/qemu']));
  const code = await within(run.exit, 60_000, 'the arm64 version run');
  assert.is(code, 0, run.output());
  const lines = run.output().trim().split('\n');
  assert.is(lines.length, 6, run.output());
  assert.is(lines[5], 'Go OS/Arch: linux/arm64');
  rmSync(join(image.rootfs, 'qemu'));
});

imageTest(
  'in-cluster style: service-account token and CA only, the chart arguments and the manifests RBAC and ConfigMap: discovers a rack, exits 0 on SIGTERM',
  async () => {
    const api: ApiServer = await startApiServer({
      namespaces: [NAMESPACE],
      users: { [SA_USER]: { grant: manifestGrant(), token: SA_TOKEN } },
    });
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
        api.store.create({
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name, labels: { 'volcano.sh/tor': 'rack-1', 'kubernetes.io/hostname': name } },
        });
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
        {
          KUBERNETES_SERVICE_HOST: '127.0.0.1',
          KUBERNETES_SERVICE_PORT: String(api.port),
          KUBE_POD_NAMESPACE: NAMESPACE,
          HELM_RELEASE_NAME: 'volcano',
        },
      );
      const run = collect(child);
      const what = (w: string) => ({ what: `${w}; output so far:\n${run.output()}`, timeoutMs: 30_000 });
      await waitFor(
        async () => (await fetch(`http://127.0.0.1:${healthz}/healthz`)).status === 200,
        what('/healthz to answer 200'),
      );
      const listed = (resource: string) =>
        api.requests.all({ user: SA_USER, verb: 'list', resource }).some((r) => r.code === 200);
      await waitFor(
        () => listed('nodes') && listed('hypernodes') && listed('configmaps'),
        what('lists of nodes, hypernodes and configmaps'),
      );
      const hypernode = await waitFor(
        () => api.store.list('hypernodes').find((h) => h.status?.nodeCount === 2),
        what('a HyperNode for rack-1 with nodeCount 2'),
      );
      assert.equal(hypernode.metadata.labels, {
        'volcano.sh/network-topology-source': 'label',
        'volcano.sh/tor': 'rack-1',
      });
      assert.match(hypernode.metadata.name, /^hypernode-rack-tier1-[a-z0-9]{5}$/);
      assert.equal(
        api.requests
          .all((r) => r.code === 401 || r.code === 403)
          .map((r) => `${r.code} ${r.verb} ${r.resource} ${r.namespace}`),
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
  },
);

test.run();
