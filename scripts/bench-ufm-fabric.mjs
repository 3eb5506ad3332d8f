#!/usr/bin/env node
// CPU and peak memory of UFM fabric discovery on a DGX SuperPOD-sized fabric:
// 64 scalable units = 2,048 hosts with 8 rails in three tiers (16,384 host
// ports, 1,280 switches, 49,152 links). The fabric is generated and served by
// the UFM stand-in; this script fetches the three answers fabric mode reads
// (systems, links, brief ports) over HTTPS as the discoverer does, saves them
// as a capture and runs the shipped executable's `render` on it, which parses
// and groups them exactly as the controller would. Prints the sizes, the
// child's CPU time (user + system) and its peak RSS; the targets are 2 s of
// CPU and 300 MB.
//
// Usage: node scripts/bench-ufm-fabric.mjs [--sus N] [--runs N]   (build first: node scripts/build.mjs)

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';
import { builtBinary, option, timedRender } from './lib/bench-render-child.mjs';

register();
const binary = builtBinary();
const TARGET_CPU_MS = 2_000;
const TARGET_RSS_MB = 300;

const { generateFatTree } = await import('../testing/fat-tree.ts');
const { UfmServer, TEST_CA } = await import('../testing/ufm-server.ts');
const { HttpGetClient } = await import('../src/hypernode/discovery/remote/http-client.ts');
const { UrlAddressPolicy } = await import('../src/hypernode/discovery/remote/allowed-addresses.ts');

const sus = option('sus', 64);
const runs = option('runs', 3);
const fabric = generateFatTree({ sus });
const server = await new UfmServer().start();
server.answer = { kind: 'fabric', fabric };
const dir = mkdtempSync(join(tmpdir(), 'bench-ufm-fabric-'));
try {
  // The stand-in listens on loopback, which the client asks only when allowed (--allow-url-cidr).
  const client = new HttpGetClient({
    insecureSkipVerify: false,
    ca: TEST_CA,
    addresses: new UrlAddressPolicy(['127.0.0.1/32']),
  });
  const auth = `Basic ${Buffer.from('admin:secret').toString('base64')}`;
  const sizes = {};
  for (const [file, path] of [
    ['systems.json', '/resources/systems'],
    ['links.json', '/resources/links'],
    ['ports.json', '/resources/ports?brief=true'],
  ]) {
    const res = await client.get(`${server.endpoint()}/ufmRest${path}`, auth);
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    writeFileSync(join(dir, file), res.body);
    sizes[file] = `${(Buffer.byteLength(res.body) / 2 ** 20).toFixed(1)} MiB`;
  }
  const conf = join(dir, 'conf.yaml');
  writeFileSync(
    conf,
    `networkTopologyDiscovery:\n  - source: ufm\n    enabled: true\n    config:\n      mode: fabric\n      fabric: superpod\n      endpoint: ${server.endpoint()}\n`,
  );
  const nodes = join(dir, 'nodes.json');
  writeFileSync(
    nodes,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: fabric.hosts.map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } })),
    }),
  );
  console.log(
    `fabric: ${sus} SUs, ${fabric.hosts.length} hosts, ${fabric.systems.length - fabric.hosts.length} switches, ${fabric.links.length} links, ${fabric.ports.length} ports; answers ${JSON.stringify(sizes)}`,
  );
  const figures = [];
  for (let i = 0; i < runs; i++) {
    const { hyperNodes, cpuMs, rssMb } = timedRender(binary, [
      '--config',
      conf,
      '--nodes',
      nodes,
      '--ufm-capture',
      dir,
    ]);
    figures.push({ cpuMs, rssMb });
    console.log(
      `run ${i + 1}: ${hyperNodes.length} HyperNodes (tiers ${[...new Set(hyperNodes.map((h) => h.spec.tier))].join(',')}), CPU ${cpuMs} ms, peak RSS ${rssMb} MB`,
    );
  }
  const worst = { cpuMs: Math.max(...figures.map((f) => f.cpuMs)), rssMb: Math.max(...figures.map((f) => f.rssMb)) };
  const ok = worst.cpuMs <= TARGET_CPU_MS && worst.rssMb <= TARGET_RSS_MB;
  console.log(
    `worst: CPU ${worst.cpuMs} ms (target ${TARGET_CPU_MS}), peak RSS ${worst.rssMb} MB (target ${TARGET_RSS_MB}): ${ok ? 'ok' : 'OVER'}`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
