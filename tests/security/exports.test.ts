// What a fabric answer can make the exports do (docs/security.md §3): the
// exports follow the tree as the reconciler keeps it, so an answer that moves
// every host to new switches at once, which the mass-delete guard holds,
// keeps the old HyperNodes but cannot list a host twice, or lose one, in the
// Slurm file `render` writes — in this process and in the built executable —
// and the warning that says so names HyperNodes and the setting to change,
// never the document.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { render } from '../../src/cmd/render.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import { railGraphDocument } from '../../testing/graph-server.ts';
import { BINARY, BUNDLE } from '../../testing/executables.ts';
import { scratchDir } from '../cmd/scratch-dir.ts';
import { readTopologyConf } from '../support/slurm-topology-reader.ts';
import { cleanEnv, runCommand } from '../support/run-command.ts';

const { write, nodesFile } = scratchDir('hn-security-exports-');

const SHAPE = { sus: 12, rails: 1, hostsPerSu: 2, spines: 2 };
const HOSTS = Array.from({ length: SHAPE.sus }, (_, s) => [`su${s + 1}-h1`, `su${s + 1}-h2`]).flat();

/** The same fabric with every leaf switch replaced: each host is cabled to a new leaf. */
function movedDocument(): ReturnType<typeof railGraphDocument> {
  const doc = railGraphDocument(SHAPE);
  const moved = (id: string) => (id.startsWith('leaf-') ? `new-${id}` : id);
  return {
    switches: doc.switches.map((s) => ({ id: moved(s.id), name: moved(s.id).toUpperCase() })),
    links: doc.links.map((l) => {
      const { a, b } = l as { a: { switch?: string }; b: { switch?: string } };
      return {
        a: a.switch ? { ...a, switch: moved(a.switch) } : a,
        b: b.switch ? { ...b, switch: moved(b.switch) } : b,
      };
    }),
  };
}

/** render's arguments: the fabric as it was in the cluster (--existing), and the answer that moves every host. */
async function movedFabric(): Promise<{ args: string[]; held: string[] }> {
  const conf = write(
    'conf.yaml',
    'networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    config:\n      fabric: lab\n      url: https://inventory.example.com/lab.yaml\n',
  );
  const nodes = nodesFile(HOSTS);
  const before = await render(
    [
      '--config',
      conf,
      '--nodes',
      nodes,
      '--graph-file',
      write('before.json', JSON.stringify(railGraphDocument(SHAPE))),
    ].concat(['-o', 'json']),
    'x',
  );
  assert.is(before.code, 0, before.stderr);
  const existing = (JSON.parse(before.stdout) as { items: HyperNode[] }).items;
  const held = existing.filter((hn) => hn.spec!.tier === 1).map((hn) => hn.metadata.name);
  const args = [
    '--config',
    conf,
    '--nodes',
    nodes,
    '--graph-file',
    write('moved.json', JSON.stringify(movedDocument())),
    '--existing',
    write('existing.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: existing })),
  ];
  return { args, held };
}

/** Each host under exactly one switch, and no held switch in the file. */
function assertEachHostOnce(conf: string, held: readonly string[]): void {
  const read = readTopologyConf(conf);
  assert.equal([...read.switches.values()].flatMap((s) => s.nodes).sort(), [...HOSTS].sort());
  assert.equal(
    held.filter((name) => read.switches.has(name)),
    [],
  );
}

test('a graph answer moving every host to new switches at once: the Slurm file lists each host once, under its new switch', async () => {
  const { args, held } = await movedFabric();
  assert.is(held.length, SHAPE.sus);
  const json = await render([...args, '-o', 'json'], 'x');
  assert.is(json.code, 0, json.stderr);
  const names = (JSON.parse(json.stdout) as { items: HyperNode[] }).items.map((hn) => hn.metadata.name);
  assert.ok(
    held.every((name) => names.includes(name)),
    'the guard keeps the old switches as HyperNodes',
  );
  assert.match(json.stderr, /would delete 12 of the 13 HyperNodes it owns .*set maxDeletePercent to 93 or more/);

  const slurm = await render([...args, '-o', 'slurm-topology-conf'], 'x');
  assert.is(slurm.code, 0, slurm.stderr);
  assertEachHostOnce(slurm.stdout, held);
  // What is said names HyperNodes and the setting, never the document's cabling.
  assert.not.match(slurm.stderr, /swp\d|eth\d|"links"|"switches"/);
});

test('the executable writes the same Slurm file for the moved fabric: each host once, nothing of the document on stderr', async () => {
  if (!existsSync(BINARY) && !existsSync(BUNDLE)) throw new Error(`${BINARY} is missing: run npm run build first`);
  const { args, held } = await movedFabric();
  const argv = ['render', ...args, '-o', 'slurm-topology-conf'];
  const shipped = existsSync(BINARY)
    ? runCommand(BINARY, argv, { env: cleanEnv() })
    : runCommand(process.execPath, [BUNDLE, ...argv], { env: cleanEnv() });
  assert.is(shipped.status, 0, shipped.stderr);
  assertEachHostOnce(shipped.stdout, held);
  assert.equal(shipped.stdout, (await render([...args, '-o', 'slurm-topology-conf'], 'x')).stdout);
  assert.not.match(shipped.stderr, /swp\d|eth\d|"links"|"switches"/);
});

test.run();
