// The README's first command (`npm run demo` = build + scripts/demo.ts) keeps
// working: the built executable, run against the stand-in's 64-node sample
// cluster, produces the full three-tier tree, the HTML view of it is written
// where the demo says, and the controller stops cleanly on SIGTERM.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEMO_SHAPE, expectedHyperNodeCount } from '../../testing/sample-cluster.ts';
import { within } from '../../testing/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('the demo prints the sample cluster as a three-tier HyperNode tree and the controller exits 0 on SIGTERM', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await within(new Promise<number | null>((resolve) => child.on('exit', resolve)), 120_000, 'the demo').finally(() => child.kill('SIGKILL'));
  assert.is(code, 0, out);
  const expected = expectedHyperNodeCount(DEMO_SHAPE);
  assert.ok(out.includes(`HyperNode tree (${expected} HyperNodes):`), out);
  const lines = out.split('\n');
  const roots = lines.filter((l) => /^hypernode-datacenter-tier3-[bcdfghjklmnpqrstvwxz2456789]{5} {2}tier=3 /.test(l));
  assert.is(roots.length, DEMO_SHAPE.zones, 'one root per zone');
  const racks = lines.filter((l) => /tier=1 \(volcano\.sh\/hypernode\) {2}nodeCount=8 {2}nodes: /.test(l));
  assert.is(racks.length, DEMO_SHAPE.zones * DEMO_SHAPE.spinesPerZone * DEMO_SHAPE.racksPerSpine, 'every rack with its 8 nodes');
  assert.ok(/Lease volcano-system\/vc-hypernode-controller-manager held by: \S+_[0-9a-f-]{36}/.test(out), 'the Lease holder is <hostname>_<uuid>');
  assert.ok(out.includes('Sent SIGTERM: the controller exited with code 0.'), out);
  const path = /open in a browser:\n {2}(\S+\.html)\n/.exec(out)?.[1];
  assert.ok(path, 'the demo prints where the HTML view is');
  const html = readFileSync(path!, 'utf8');
  assert.match(html, /^<!doctype html>/);
  assert.match(html, `<title>HyperNodes: ${expected}</title>`);
});

test.run();
