// The README's first command: build, then run the real executable against
// the API server stand-in seeded with a sample cluster (64 Nodes in three
// tiers + the discovery ConfigMap), with leader election, probes and metrics,
// print the HyperNode tree it produced, write the HTML view of it with the
// same executable run as the kubectl plugin (`kubectl hypernode tree -o
// html`) and print that file's path, print the Node labels it wrote from the
// tree (exports.nodeLabels, as `kubectl get nodes -L` shows them), turn the
// labels off again (only the labels it wrote go), and stop everything cleanly.
//
// Run with: npm run demo   (builds first). Nothing here needs a cluster.

import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { hypernodeControllerRbac, startApiServer } from '../testing/apiserver/index.ts';
import {
  DEMO_SHAPE,
  SAMPLE_DISCOVERY_CONFIG,
  discoveryConfigMap,
  expectedHyperNodeCount,
  sampleNodes,
} from '../testing/sample-cluster.ts';
import { nodeLabelOverlayRules } from '../testing/component-rbac.ts';
import { waitFor } from '../testing/wait.ts';
import { renderHyperNodeTree } from '../src/hypernode/preview/hypernode-tree.ts';
import { freePorts } from '../testing/ports.ts';

const NAMESPACE = 'volcano-system';
const LEASE = 'vc-hypernode-controller-manager';
const root = fileURLToPath(new URL('..', import.meta.url));
const binary = join(root, 'dist/vc-hypernode-controller-manager');
/** Kept after the demo (unlike its temporary directory), so it can be opened afterwards. */
const htmlView = join(root, 'dist/demo/topology.html');

/** `kubectl hypernode tree -o html`: the executable run under the plugin's name, against the stand-in. */
async function writeHtmlView(work: string, kubeconfig: string): Promise<string> {
  const plugin = join(work, 'kubectl-hypernode');
  symlinkSync(binary, plugin);
  const { stdout } = await promisify(execFile)(plugin, ['tree', '-o', 'html'], {
    env: { ...process.env, KUBECONFIG: kubeconfig },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 30_000,
  });
  mkdirSync(join(root, 'dist/demo'), { recursive: true });
  writeFileSync(htmlView, stdout);
  return htmlView;
}

/** The sample configuration with the label source's Node labels on, under their default prefix. */
const LABELS_ON = SAMPLE_DISCOVERY_CONFIG.replace(
  '  - source: label\n    enabled: true\n',
  '  - source: label\n    enabled: true\n    exports:\n      nodeLabels: {}\n',
);
const PREFIX = 'label.topology.volcano.sh/';
const OWNED = 'topology.volcano.sh/owned-labels.label';

type DemoNode = { metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> } };

/** The table `kubectl get nodes -L k1,k2,…` prints (NAME and one column per key, headed by its last segment). */
function labelColumns(nodes: DemoNode[], keys: string[]): string {
  const rows = [
    ['NAME', ...keys.map((k) => k.split('/').pop()!.toUpperCase())],
    ...nodes.map((n) => [n.metadata.name, ...keys.map((k) => n.metadata.labels?.[k] ?? '')]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c]! + 3))
        .join('')
        .trimEnd(),
    )
    .join('\n');
}

async function httpStatus(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1000) })).status;
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`npm run build\` first`);
  const work = mkdtempSync(join(tmpdir(), 'hnc-demo-'));
  const api = await startApiServer({ namespaces: [NAMESPACE] });
  try {
    // The chart's RBAC plus the deploy/node-labels component (patch on Nodes).
    const token = api.addUser(`system:serviceaccount:${NAMESPACE}:volcano-hypernode-controller`, [
      ...hypernodeControllerRbac(NAMESPACE, LEASE),
      ...nodeLabelOverlayRules(),
    ]);
    const kubeconfig = api.writeKubeconfig(work, { token });
    const nodes = sampleNodes(DEMO_SHAPE);
    for (const n of nodes) api.store.create(n);
    api.store.create(discoveryConfigMap(NAMESPACE, LABELS_ON));
    const expected = expectedHyperNodeCount(DEMO_SHAPE);
    console.log(`API server stand-in: ${api.url} (TLS, least-privilege RBAC token)`);
    console.log(
      `Seeded ${nodes.length} Nodes labelled zone → spine → rack, and ConfigMap ${NAMESPACE}/volcano-controller-configmap (label source, exports.nodeLabels on).`,
    );

    const [healthPort, metricsPort] = await freePorts(2);
    const args = [
      `--kubeconfig=${kubeconfig}`,
      '--leader-elect=true',
      `--leader-elect-resource-namespace=${NAMESPACE}`,
      `--leader-elect-resource-name=${LEASE}`,
      '--enable-healthz=true',
      `--healthz-address=127.0.0.1:${healthPort}`,
      '--enable-metrics=true',
      `--listen-address=127.0.0.1:${metricsPort}`,
      '-v=2',
    ];
    console.log(`\n$ vc-hypernode-controller-manager ${args.join(' ')}\n`);
    const child = spawn(binary, args, {
      env: { ...process.env, KUBE_POD_NAMESPACE: NAMESPACE, HELM_RELEASE_NAME: 'volcano' },
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let log = '';
    child.stderr.on('data', (d) => (log += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(async () => (await httpStatus(`http://127.0.0.1:${healthPort}/readyz`)) === 200, {
        timeoutMs: 30_000,
        what: '/readyz to answer 200',
      });
      // Converged: every expected HyperNode exists and its nodeCount is written.
      const hyperNodes = await waitFor(
        () => {
          const hns = api.store.list('hypernodes') as Array<{
            metadata: { name: string };
            spec: { tier: number };
            status?: { nodeCount?: number };
          }>;
          return hns.length === expected && hns.every((hn) => (hn.status?.nodeCount ?? 0) > 0) && hns;
        },
        { timeoutMs: 30_000, what: `${expected} HyperNodes with nodeCount` },
      );
      console.log(`HyperNode tree (${hyperNodes.length} HyperNodes):\n`);
      console.log(renderHyperNodeTree(hyperNodes as never));
      const html = await writeHtmlView(work, kubeconfig);
      console.log(
        `\n$ kubectl hypernode tree -o html > ${html}\nThe HTML view (a picture of the tree, a collapsible list, a search box), to open in a browser:\n  ${html}`,
      );
      const listNodes = () => api.store.list('nodes') as DemoNode[];
      const labelled = await waitFor(
        () => {
          const all = listNodes();
          return all.every((n) => n.metadata.annotations?.[OWNED]) && all;
        },
        { timeoutMs: 30_000, what: 'every Node labelled' },
      );
      const keys = [
        ...new Set(labelled.flatMap((n) => Object.keys(n.metadata.labels ?? {}).filter((k) => k.startsWith(PREFIX)))),
      ].sort();
      console.log(
        `\nNode labels written from the tree (exports.nodeLabels):\n\n$ kubectl get nodes -L ${keys.join(',')}\n`,
      );
      console.log(labelColumns(labelled, keys));
      const lease = api.store.get('leases', LEASE, NAMESPACE) as { spec?: { holderIdentity?: string } } | undefined;
      const writes = api.requests.writes();
      const byVerb = new Map<string, number>();
      for (const r of writes) {
        const what = `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
        byVerb.set(what, (byVerb.get(what) ?? 0) + 1);
      }
      console.log(`\nLease ${NAMESPACE}/${LEASE} held by: ${lease?.spec?.holderIdentity ?? '(none)'}`);
      console.log(`API writes so far: ${[...byVerb].map(([k, v]) => `${v} ${k}`).join(', ')}`);
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const hnMetrics = metrics.split('\n').filter((l) => l.startsWith('hypernode_') && !l.includes('_bucket'));
      if (hnMetrics.length > 0) console.log(`\n/metrics (HyperNode families):\n${hnMetrics.slice(0, 12).join('\n')}`);

      // Turning the labels off removes exactly what the controller wrote.
      const cm = api.store.get('configmaps', 'volcano-controller-configmap', NAMESPACE) as {
        data: Record<string, string>;
      };
      api.store.update({ ...cm, data: { 'volcano-controller.conf': SAMPLE_DISCOVERY_CONFIG } });
      const cleared = await waitFor(
        () => {
          const all = listNodes();
          return all.every((n) => !n.metadata.annotations?.[OWNED]) && all;
        },
        { timeoutMs: 30_000, what: 'every ownership record removed' },
      );
      const seeded = new Map(nodes.map((n) => [n.metadata.name, JSON.stringify(n.metadata.labels)]));
      const same = cleared.filter((n) => JSON.stringify(n.metadata.labels) === seeded.get(n.metadata.name)).length;
      console.log(
        `\nTurned exports.nodeLabels off: ${same} of ${cleared.length} Nodes carry exactly their seeded labels again (the ${keys.length} keys above removed, nothing else).`,
      );
    } catch (err) {
      console.error(`\nThe controller's log:\n${log}`);
      throw err;
    } finally {
      child.kill('SIGTERM');
    }
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000))]);
    if (code === 'timeout') {
      child.kill('SIGKILL');
      throw new Error('the controller did not stop within 30 s of SIGTERM');
    }
    console.log(`\nSent SIGTERM: the controller exited with code ${code}.`);
    return code === 0 ? 0 : 1;
  } finally {
    await api.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`demo failed: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  },
);
