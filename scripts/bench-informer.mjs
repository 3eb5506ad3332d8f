#!/usr/bin/env node
// Benchmark: list + sync time and memory of the Node informer for 10,000
// Nodes in the API server stand-in, metadata-only (PartialObjectMetadata,
// name + labels kept; what the controller runs) against full Node objects
// (what Go's shared informer caches). Each mode runs in its own process so
// RSS is not shared; figures are printed, nothing is asserted.
//
// Usage: node scripts/bench-informer.mjs [nodes=10000] [runs=2]

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const root = fileURLToPath(new URL('..', import.meta.url));
const self = fileURLToPath(import.meta.url);
const MB = 1024 * 1024;

/** A Node about the size of a real kubelet-registered one (~4 KB of JSON). */
function node(i) {
  const name = `node-${String(i).padStart(5, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': 'gpu-8x',
        'topology.kubernetes.io/zone': `zone-${i % 4}`,
        'network.example.com/spine': `spine-${i % 16}`,
        'network.example.com/leaf': `leaf-${i % 256}`,
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        'csi.volume.kubernetes.io/nodeid': JSON.stringify({ 'csi.example.com': name }),
      },
    },
    spec: { podCIDR: `10.${(i >> 8) & 255}.${i & 255}.0/24`, providerID: `example://${name}` },
    status: {
      capacity: {
        cpu: '128',
        memory: '1056462848Ki',
        'nvidia.com/gpu': '8',
        pods: '110',
        'ephemeral-storage': '3750000000Ki',
      },
      allocatable: {
        cpu: '127',
        memory: '1050000000Ki',
        'nvidia.com/gpu': '8',
        pods: '110',
        'ephemeral-storage': '3450000000Ki',
      },
      conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({
        type,
        status: type === 'Ready' ? 'True' : 'False',
        lastHeartbeatTime: '2026-01-01T00:00:00Z',
        lastTransitionTime: '2026-01-01T00:00:00Z',
        reason: `Kubelet${type}`,
        message: `kubelet reports ${type} condition`,
      })),
      addresses: [
        { type: 'InternalIP', address: `10.0.${(i >> 8) & 255}.${i & 255}` },
        { type: 'Hostname', address: name },
      ],
      nodeInfo: {
        machineID: 'a'.repeat(32),
        systemUUID: 'b'.repeat(36),
        bootID: 'c'.repeat(36),
        kernelVersion: '6.1.0-18-amd64',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        containerRuntimeVersion: 'containerd://1.7.13',
        kubeletVersion: 'v1.31.0',
        kubeProxyVersion: 'v1.31.0',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: Array.from({ length: 12 }, (_, k) => ({
        names: [
          `registry.example.com/team/image-${k}@sha256:${'d'.repeat(64)}`,
          `registry.example.com/team/image-${k}:v${k}`,
        ],
        sizeBytes: 100_000_000 + k,
      })),
    },
  };
}

async function child(mode, kubeconfig) {
  const { buildClientConfig } = await import('../src/kube/config.ts');
  const { keepNameAndLabels, resourceInformer } = await import('../src/kube/informer.ts');
  const { resourceClient } = await import('../src/kube/resource.ts');
  const { RestClient } = await import('../src/kube/rest.ts');
  const { Transport } = await import('../src/kube/transport.ts');
  const { nullLogger } = await import('../src/log.ts');
  const transport = new Transport(buildClientConfig({ master: '', kubeconfig }, nullLogger));
  const rest = new RestClient({ transport, userAgent: 'bench-informer', qps: 50, burst: 100 });
  const nodes = resourceClient(rest, { group: '', version: 'v1', resource: 'nodes', namespaced: false });
  globalThis.gc();
  const before = process.memoryUsage();
  const informer =
    mode === 'metadata'
      ? resourceInformer(nodes, { metadataOnly: true, transform: keepNameAndLabels, logger: nullLogger })
      : resourceInformer(nodes, { logger: nullLogger });
  const stop = new AbortController();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const running = informer.run(stop.signal);
  await informer.waitForSync();
  const syncMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const peakRss = process.memoryUsage().rss;
  globalThis.gc();
  const after = process.memoryUsage();
  const result = {
    mode,
    objects: informer.list().length,
    syncMs: Math.round(syncMs),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    rssAtSyncMB: +(peakRss / MB).toFixed(1),
    rssAfterGcMB: +(after.rss / MB).toFixed(1),
    cacheHeapMB: +((after.heapUsed - before.heapUsed) / MB).toFixed(1),
    baselineRssMB: +(before.rss / MB).toFixed(1),
  };
  stop.abort();
  await running;
  transport.close();
  process.stdout.write(JSON.stringify(result) + '\n');
}

function runChild(mode, kubeconfig) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--expose-gc', self, 'child', mode, kubeconfig], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${mode} child exited ${code}`))));
  });
}

async function main() {
  const count = Number(process.argv[2] ?? 10_000);
  const runs = Number(process.argv[3] ?? 2);
  const { startApiServer } = await import('../testing/apiserver/index.ts');
  const api = await startApiServer();
  const dir = mkdtempSync(join(tmpdir(), 'bench-informer-'));
  try {
    const seeded = performance.now();
    for (let i = 0; i < count; i++) api.store.create(node(i));
    const bytes = JSON.stringify(node(0)).length;
    console.log(
      `seeded ${count} Nodes (~${(bytes / 1024).toFixed(1)} KB JSON each) in ${Math.round(performance.now() - seeded)} ms`,
    );
    const kubeconfig = api.writeKubeconfig(dir);
    const rows = [];
    for (let r = 0; r < runs; r++) for (const mode of ['metadata', 'full']) rows.push(await runChild(mode, kubeconfig));
    console.log(`node ${process.version}, ${count} Nodes, TLS stand-in on 127.0.0.1, list pages of 500`);
    console.table(rows);
  } finally {
    await api.close();
    rmSync(dir, { recursive: true });
  }
}

if (process.argv[2] === 'child') await child(process.argv[3], process.argv[4]);
else await main();
