#!/usr/bin/env node
// Peak memory and /healthz latency of the built executable for each input
// that once did unbounded work, and for the legal inputs of the largest size
// it reads (docs/security.md §9): a UFM answer of nested arrays and one of
// empty arrays (60 MiB, under the 64 MiB cap), a legal 45 MiB ports answer
// (a 10,000-host fabric's), graph documents nested as JSON (15 MiB, under the
// 16 MiB cap) and as YAML, a legal 8,192-host graph document, an SNMP agent
// answering 60 KB values and one whose port table never ends, a 26 MiB
// ibnetdiscover output of 65,536 HCAs, and a discovery ConfigMap of 30,000
// entries (with the time from SIGTERM to exit). Each input runs against a
// fresh executable that has already started with no source: its resident
// memory before the input, its peak (VmHWM) after, and /healthz asked every
// 50 ms with a one-second timeout, as kubelet does, throughout. Prints one
// line an input and PASS or MISS against the Deployment's 512 Mi limit and a
// probe that never waits a second.
//
// Usage: node --import tsx scripts/bench-hostile-inputs.ts [--only=NAME,...]   (build first: node scripts/build.mjs)

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { discoverySecret, switchHosts } from '../testing/discovery-secret.ts';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer } from '../testing/apiserver/index.ts';
import { BINARY } from '../testing/executables.ts';
import { GraphServer, railGraphDocument } from '../testing/graph-server.ts';
import {
  emptyArrays,
  legalPorts,
  MiB,
  nestedArrays,
  nestedGraph,
  nestedYamlGraph,
  ProbeWatch,
} from '../testing/hostile-inputs.ts';
import { IbFabric } from '../testing/ib-fabric.ts';
import { generateFatTree } from '../testing/fat-tree.ts';
import { lldpSwitches } from '../testing/lldp-fabric.ts';
import { discoveryConfigMap } from '../testing/sample-cluster.ts';
import { startSnmpStandIn } from '../testing/snmp-stand-in.ts';
import { TEST_CA, UfmServer } from '../testing/ufm-server.ts';
import { waitFor } from '../testing/wait.ts';
import { flagValue, launchController, NAMESPACE } from './lib/bench-launch.ts';

/** The Deployment's limits.memory (deploy/kubernetes/deployment.yaml), MB. */
const LIMIT_MB = 512 * 1.048576;
const PROBE_TIMEOUT_MS = 1_000;
const INPUT_TIMEOUT_MS = 300_000;

interface Cluster {
  readonly api: ApiServer;
  readonly work: string;
  /** Servers to close after the input. */
  readonly closers: (() => Promise<void>)[];
}

interface Scenario {
  readonly name: string;
  /** Sets up what the input needs; the discovery document that reads it and when it has been read. */
  prepare(c: Cluster): Promise<{ conf: string; done: () => boolean; outcome: () => string }>;
}

const nodes = (api: ApiServer, names: readonly string[]) => {
  for (const name of names) api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
};
const events = (api: ApiServer) => api.store.list('events', NAMESPACE) as unknown as { message: string }[];
const warned = (api: ApiServer, text: string) => () => events(api).some((e) => e.message.includes(text));
const hyperNodesOf = (api: ApiServer, source: string) => () =>
  api.store
    .list('hypernodes')
    .some(
      (hn) =>
        (hn as { metadata: { labels?: Record<string, string> } }).metadata.labels?.[
          'volcano.sh/network-topology-source'
        ] === source,
    );
const refusal = (api: ApiServer) => () =>
  /(is nested \d+ levels deep|holds about \d+ values|the walk was abandoned|more than 2 MiB)[^"]*/.exec(
    events(api)
      .map((e) => e.message)
      .join('\n'),
  )?.[0] ?? 'no refusal';

async function ufmScenario(c: Cluster, body: string, legal: boolean) {
  const ufm = await new UfmServer().start();
  c.closers.push(() => ufm.close());
  ufm.answer = { kind: 'raw', body };
  c.api.store.create(
    discoverySecret(
      NAMESPACE,
      'ufm',
      { username: ufm.username, password: ufm.password, 'ca.crt': TEST_CA },
      { endpoints: [ufm.endpoint()] },
    ),
  );
  return {
    conf: `networkTopologyDiscovery:\n  - source: ufm\n    enabled: true\n    credentials:\n      secretRef: {name: ufm, namespace: ${NAMESPACE}}\n    config:\n      endpoint: ${ufm.endpoint()}\n`,
    done: legal ? hyperNodesOf(c.api, 'ufm') : warned(c.api, 'so it was not parsed'),
    outcome: legal ? () => 'read; HyperNodes written' : refusal(c.api),
  };
}

async function graphScenario(c: Cluster, body: string, hosts: readonly string[]) {
  const server = await new GraphServer().start();
  c.closers.push(() => server.close());
  server.token = 'bench-token';
  server.answer = { status: 200, body };
  nodes(c.api, hosts);
  c.api.store.create(
    discoverySecret(NAMESPACE, 'inventory', { token: 'bench-token', 'ca.crt': TEST_CA }, { endpoints: [server.url()] }),
  );
  const legal = hosts.length > 0;
  return {
    conf: `networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    credentials:\n      secretRef: {name: inventory, namespace: ${NAMESPACE}}\n    config:\n      fabric: lab\n      url: "${server.url()}"\n`,
    done: legal ? hyperNodesOf(c.api, 'graph') : warned(c.api, 'so it was not parsed'),
    outcome: legal ? () => 'read; HyperNodes written' : refusal(c.api),
  };
}

async function snmpScenario(c: Cluster, valueBytes: number) {
  const sw = lldpSwitches(generateFatTree({ sus: 1, nodesPerSu: 2, rails: 1, tiers: 2 }));
  // Every switch of the fabric is hostile: 32 walks at once, the default concurrency.
  const agent = await startSnmpStandIn(sw.slice(0, 1), 'public', { endless: true, valueBytes });
  const agents = [agent];
  for (let i = 1; i < 32; i++)
    agents.push(await startSnmpStandIn(sw.slice(0, 1), 'public', { endless: true, valueBytes }));
  c.closers.push(async () => {
    await Promise.all(agents.map((a) => a.close()));
  });
  const addresses = agents.flatMap((a) => a.addresses);
  c.api.store.create(discoverySecret(NAMESPACE, 'snmp', { community: 'public' }, { hosts: switchHosts(addresses) }));
  const switches = addresses.map((a) => `"${a}"`);
  return {
    conf: `networkTopologyDiscovery:\n  - source: lldp\n    enabled: true\n    credentials:\n      secretRef: {name: snmp, namespace: ${NAMESPACE}}\n    config:\n      switches: [${switches.join(', ')}]\n`,
    done: warned(c.api, 'the walk was abandoned'),
    outcome: refusal(c.api),
  };
}

/** 2,048 switches and 65,536 HCAs (8,192 hosts on 8 rails), as scripts/bench-ibnetdiscover.ts prints them. */
function ibOutput(): { text: string; hosts: string[] } {
  const f = new IbFabric();
  const hosts: string[] = [];
  for (let c = 0; c < 256; c++) f.addSwitch(`core-${c}`, 128, `MF0;IBCORE-${c}:MQM9700/U1`);
  for (let p = 0; p < 16; p++)
    for (let j = 0; j < 48; j++) {
      f.addSwitch(`spine-${p}-${j}`, 128, `MF0;IBSPINE-${p}-${j}:MQM9700/U1`);
      for (let k = 0; k < 16; k++) f.cable(`spine-${p}-${j}`, `core-${(j % 16) * 16 + k}`);
    }
  for (let u = 0; u < 128; u++) {
    for (let r = 0; r < 8; r++) {
      f.addSwitch(`leaf-${u}-${r}`, 128, `MF0;IBLEAF-${r}-${u}:MQM9700/U1`);
      for (let j = 0; j < 48; j++) f.cable(`leaf-${u}-${r}`, `spine-${Math.floor(u / 8)}-${j}`);
    }
    for (let h = 0; h < 64; h++) {
      const host = `node-${String(u).padStart(3, '0')}-${String(h).padStart(2, '0')}`;
      hosts.push(host);
      for (let r = 0; r < 8; r++) {
        f.addCa(`${host} mlx5_${r}`);
        f.cable(`${host} mlx5_${r}`, `leaf-${u}-${r}`);
      }
    }
  }
  return { text: f.ibnetdiscoverText({ speed: 'NDR', port0: 'enhanced', vendorId: '0x2c9' }), hosts };
}

const SCENARIOS: Scenario[] = [
  { name: 'ufm-nested-60MiB', prepare: (c) => ufmScenario(c, nestedArrays(60 * MiB), false) },
  { name: 'ufm-empty-arrays-60MiB', prepare: (c) => ufmScenario(c, emptyArrays(60 * MiB), false) },
  { name: 'ufm-legal-45MiB', prepare: (c) => ufmScenario(c, legalPorts(45 * MiB).body, true) },
  { name: 'graph-json-nested-15MiB', prepare: (c) => graphScenario(c, nestedGraph(15 * MiB), []) },
  { name: 'graph-yaml-nested-3MiB', prepare: (c) => graphScenario(c, nestedYamlGraph(3 * MiB), []) },
  {
    name: 'graph-legal-8192-hosts',
    prepare: (c) => {
      const doc = railGraphDocument({ sus: 64, rails: 8, hostsPerSu: 128, spines: 32 });
      const hosts = Array.from({ length: 64 * 128 }, (_, i) => `su${Math.floor(i / 128) + 1}-h${(i % 128) + 1}`);
      return graphScenario(c, JSON.stringify(doc), hosts);
    },
  },
  { name: 'snmp-60KB-values-x32', prepare: (c) => snmpScenario(c, 60_000) },
  { name: 'snmp-endless-table-x32', prepare: (c) => snmpScenario(c, 8) },
  {
    name: 'ibnetdiscover-legal-26MiB',
    prepare: async (c) => {
      const { text, hosts } = ibOutput();
      const file = join(c.work, 'ibnetdiscover.txt');
      writeFileSync(file, text);
      nodes(c.api, hosts);
      return {
        conf: `networkTopologyDiscovery:\n  - source: ibnetdiscover\n    enabled: true\n    config:\n      fabric: compute\n      hcas: "^mlx5_[0-7]$"\n      file: ${file}\n`,
        done: hyperNodesOf(c.api, 'ibnetdiscover'),
        outcome: () => `${(text.length / MiB).toFixed(1)} MiB read; HyperNodes written`,
      };
    },
  },
  {
    name: 'configmap-30000-entries',
    prepare: async (c) => ({
      conf: `networkTopologyDiscovery:\n${'  - {source: label, enabled: true}\n'.repeat(30_000)}`,
      done: warned(c.api, 'so it was not parsed'),
      outcome: refusal(c.api),
    }),
  },
];

async function run(scenario: Scenario): Promise<boolean> {
  const api = await startApiServer({ namespaces: [NAMESPACE] });
  const work = mkdtempSync(join(tmpdir(), 'bench-hostile-'));
  const cluster: Cluster = { api, work, closers: [] };
  api.store.create(discoveryConfigMap(NAMESPACE, 'networkTopologyDiscovery: []\n'));
  const { controller, healthUrl } = await launchController(api, work, BINARY, { qps: 300, burst: 600 });
  try {
    await waitFor(
      async () => (await fetch(`${healthUrl}/readyz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })).ok,
      { timeoutMs: 60_000, what: 'the executable to be ready' },
    );
    const input = await scenario.prepare(cluster);
    const before = controller.memory().rssMB;
    const watch = new ProbeWatch(`${healthUrl}/healthz`, 50, PROBE_TIMEOUT_MS);
    const started = performance.now();
    const cm = api.store.get('configmaps', 'volcano-controller-configmap', NAMESPACE) as { metadata: object };
    api.store.update({ ...cm, data: { 'volcano-controller.conf': input.conf } });
    await waitFor(input.done, { timeoutMs: INPUT_TIMEOUT_MS, what: `${scenario.name} to be read` });
    const tookS = (performance.now() - started) / 1000;
    const probes = await watch.stop();
    const peak = controller.memory().hwmMB;
    const stopping = performance.now();
    const code = await controller.stop();
    const sigtermS = (performance.now() - stopping) / 1000;
    const ok = peak <= LIMIT_MB && probes.failures === 0 && probes.maxMs < PROBE_TIMEOUT_MS && code === 0;
    console.log(
      `${scenario.name.padEnd(26)} ${input.outcome().slice(0, 70).padEnd(70)} in ${tookS.toFixed(1).padStart(5)} s; RSS before ${before.toFixed(0).padStart(3)} MB, peak ${peak.toFixed(0).padStart(4)} MB; /healthz ${probes.probes} probes, max ${probes.maxMs} ms, p99 ${probes.p99Ms} ms, ${probes.failures} failed; SIGTERM → exit ${code} in ${sigtermS.toFixed(1)} s: ${ok ? 'PASS' : 'MISS'}`,
    );
    return ok;
  } catch (err) {
    console.log(`${scenario.name}: ${(err as Error).message}\n${controller.log.slice(-3000)}`);
    return false;
  } finally {
    await controller.stop();
    for (const close of cluster.closers) await close();
    await api.close();
    rmSync(work, { recursive: true, force: true });
  }
}

const only = flagValue(process.argv.slice(2), 'only')?.split(',');
let passed = true;
const load = () => loadavg()[0]!.toFixed(1);
console.log(
  `limits: peak RSS ≤ ${LIMIT_MB.toFixed(0)} MB (the Deployment's 512Mi), every /healthz within ${PROBE_TIMEOUT_MS} ms; load average ${load()}`,
);
for (const s of SCENARIOS) if (!only || only.includes(s.name)) passed = (await run(s)) && passed;
console.log(`load average ${load()} at the end (a probe waits longer on a machine busy with other work)`);
process.exitCode = passed ? 0 : 1;
