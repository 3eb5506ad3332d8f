// A newcomer's first hour, timed: from a fresh clone of this repository to
// `render -o tree` of a Node list file, and to `kubectl hypernode tree` on a
// cluster (the demo's API server stand-in with the controller running).
// Prints each step's wall time; asserts nothing.
//
//   node --import tsx scripts/bench-first-hour.ts
//
// Needs git and npm (the npm cache or registry for `npm ci`); kubectl is used
// when installed, else the plugin is run directly as kubectl would run it.

import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { hypernodeControllerRbac, startApiServer } from '../testing/apiserver/index.ts';
import { REPO_ROOT } from '../testing/executables.ts';
import {
  DEMO_SHAPE,
  discoveryConfigMap,
  expectedHyperNodeCount,
  SAMPLE_DISCOVERY_CONFIG,
  sampleNodes,
} from '../testing/sample-cluster.ts';
import { waitFor } from '../testing/wait.ts';

const NS = 'volcano-system';
const CONFIG = `networkTopologyDiscovery:
  - source: label
    enabled: true
    config:
      networkTopologyTypes:
        zones:
          - nodeLabel: topology.kubernetes.io/region
          - nodeLabel: topology.kubernetes.io/zone
          - nodeLabel: kubernetes.io/hostname
`;

const figures: Array<[string, number]> = [];
/** Runs `step`, records its wall time in seconds. */
async function timed<T>(what: string, step: () => T | Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await step();
  figures.push([what, (performance.now() - start) / 1000]);
  return result;
}

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const work = mkdtempSync(join(tmpdir(), 'first-hour-'));
const clone = join(work, 'clone');
try {
  await timed('git clone', () => execFileSync('git', ['clone', '-q', REPO_ROOT, clone]));
  await timed('npm ci', () =>
    execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: clone, stdio: 'ignore' }),
  );
  await timed('npm run build', () => execFileSync('npm', ['run', 'build'], { cwd: clone, stdio: 'ignore' }));
  const binary = join(clone, 'dist/vc-hypernode-controller-manager');
  const nodes = ['a1', 'a2', 'b1', 'b2'].map((n) => ({
    metadata: {
      name: `gpu-${n}`,
      labels: {
        'kubernetes.io/hostname': `gpu-${n}`,
        'topology.kubernetes.io/region': 'eu-west',
        'topology.kubernetes.io/zone': `eu-west-${n[0]}`,
      },
    },
  }));
  writeFileSync(join(work, 'nodes.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: nodes }));
  writeFileSync(join(work, 'conf.yaml'), CONFIG);
  const tree = await timed('render -o tree', () =>
    execFileSync(binary, ['render', '--config', 'conf.yaml', '--nodes', 'nodes.json', '-o', 'tree'], {
      cwd: work,
      encoding: 'utf8',
    }),
  );

  // A cluster: the demo's stand-in and sample Nodes, the controller from the clone.
  const api = await startApiServer({ namespaces: [NS] });
  try {
    const token = api.addUser(
      `system:serviceaccount:${NS}:volcano-hypernode-controller`,
      hypernodeControllerRbac(NS, 'vc-hypernode-controller-manager'),
    );
    const kubeconfig = api.writeKubeconfig(work, { token });
    for (const n of sampleNodes(DEMO_SHAPE)) api.store.create(n);
    api.store.create(discoveryConfigMap(NS, SAMPLE_DISCOVERY_CONFIG));
    const controller = spawn(binary, [`--kubeconfig=${kubeconfig}`], {
      stdio: 'ignore',
      env: { ...process.env, KUBE_POD_NAMESPACE: NS },
    });
    try {
      await timed('controller start to every HyperNode written', () =>
        waitFor(() => api.store.list('hypernodes').length === expectedHyperNodeCount(DEMO_SHAPE), {
          timeoutMs: 60_000,
          what: 'the HyperNodes',
        }),
      );
      const bin = join(work, 'bin');
      mkdirSync(bin);
      symlinkSync(binary, join(bin, 'kubectl-hypernode'));
      const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, KUBECONFIG: kubeconfig };
      // Asynchronous: the stand-in answers from this process.
      const [cmd, args] = hasKubectl()
        ? ['kubectl', ['hypernode', 'tree']]
        : [join(bin, 'kubectl-hypernode'), ['tree']];
      const live = await timed(`${cmd === 'kubectl' ? 'kubectl hypernode' : 'kubectl-hypernode'} tree`, () =>
        promisify(execFile)(cmd, args as string[], { env, encoding: 'utf8' }),
      );
      console.log(
        `render -o tree:\n${tree}\nkubectl hypernode tree (first lines):\n${live.stdout.split('\n').slice(0, 3).join('\n')}\n`,
      );
    } finally {
      controller.kill('SIGTERM');
    }
  } finally {
    await api.close();
  }
  for (const [what, seconds] of figures) console.log(`${what.padEnd(46)} ${seconds.toFixed(2)} s`);
  const upTo = (step: string) =>
    figures.slice(0, figures.findIndex(([w]) => w === step) + 1).reduce((sum, [, s]) => sum + s, 0);
  console.log(`${'fresh clone to render -o tree'.padEnd(46)} ${upTo('render -o tree').toFixed(2)} s`);
  console.log(
    `${'fresh clone to kubectl hypernode tree'.padEnd(46)} ${figures.reduce((sum, [w, s]) => sum + (w === 'render -o tree' ? 0 : s), 0).toFixed(2)} s`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
