// The README's first command (`npm run demo` = build + scripts/demo.ts) keeps
// working: the built executable, run against the stand-in's 64-node sample
// cluster, produces the full three-tier tree, the HTML view of it is written
// where the demo says, labels every Node after it (the `kubectl get nodes -L`
// view: one value per HyperNode, shared by exactly its Nodes), removes exactly
// those labels when they are turned off, and stops cleanly on SIGTERM.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEMO_SHAPE, expectedHyperNodeCount } from '../../testing/sample-cluster.ts';
import { within } from '../../testing/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('the demo prints the sample cluster as a three-tier HyperNode tree and the controller exits 0 on SIGTERM', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await within(
    new Promise<number | null>((resolve) => child.on('exit', resolve)),
    120_000,
    'the demo',
  ).finally(() => child.kill('SIGKILL'));
  assert.is(code, 0, out);
  const expected = expectedHyperNodeCount(DEMO_SHAPE);
  assert.ok(out.includes(`HyperNode tree (${expected} HyperNodes):`), out);
  const lines = out.split('\n');
  const roots = lines.filter((l) => /^hypernode-datacenter-tier3-[bcdfghjklmnpqrstvwxz2456789]{5} {2}tier=3 /.test(l));
  assert.is(roots.length, DEMO_SHAPE.zones, 'one root per zone');
  const racks = lines.filter((l) => /tier=1 \(volcano\.sh\/hypernode\) {2}nodeCount=8 {2}nodes: /.test(l));
  assert.is(
    racks.length,
    DEMO_SHAPE.zones * DEMO_SHAPE.spinesPerZone * DEMO_SHAPE.racksPerSpine,
    'every rack with its 8 nodes',
  );
  const header = lines.findIndex((l) => /^NAME +HYPERCLUSTER +HYPERNODE +ZONE$/.test(l));
  assert.ok(header > 0, 'the kubectl get nodes -L view');
  const rows = lines.slice(header + 1, header + 1 + 64).map((l) => l.split(/ +/));
  assert.ok(
    rows.every((r) => r.length === 4 && /^node-\d\d$/.test(r[0]!)),
    'one row per Node with three values',
  );
  const groupSizes = (col: number) =>
    [...new Set(rows.map((r) => r[col]))].map((v) => rows.filter((r) => r[col] === v).length);
  assert.equal(groupSizes(2), Array(8).fill(8), 'each rack HyperNode value on exactly its 8 Nodes');
  assert.equal(groupSizes(1), Array(4).fill(16), 'each spine value on its 16 Nodes');
  assert.equal(groupSizes(3), Array(2).fill(32), 'each zone value on its 32 Nodes');
  assert.ok(out.includes('Turned exports.nodeLabels off: 64 of 64 Nodes carry exactly their seeded labels again'), out);
  assert.ok(
    /Lease volcano-system\/vc-hypernode-controller-manager held by: \S+_[0-9a-f-]{36}/.test(out),
    'the Lease holder is <hostname>_<uuid>',
  );
  assert.ok(out.includes('Sent SIGTERM: the controller exited with code 0.'), out);
  const path = /open in a browser:\n {2}(\S+\.html)\n/.exec(out)?.[1];
  assert.ok(path, 'the demo prints where the HTML view is');
  const html = readFileSync(path!, 'utf8');
  assert.match(html, /^<!doctype html>/);
  assert.match(html, `<title>HyperNodes: ${expected}</title>`);
});

test.run();
