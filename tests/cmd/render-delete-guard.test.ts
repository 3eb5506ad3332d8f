// `render --existing` reports the deletes the controller's mass-delete guard
// would hold: a `warning:` line on stderr naming them and saying how to allow
// them, while stdout still lists what would be written. Without existing
// objects there is nothing to delete and nothing to warn about.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { HyperNode } from '../../src/hypernode/api/types.ts';
import { render } from '../../src/cmd/render.ts';
import { CLUSTER, RACK, TOPOLOGY_A3_ENTRY, node } from '../e2e/cluster.ts';

const ARGV0 = 'vc-hypernode-controller-manager';
let dir = '';
test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), 'hn-render-guard-'))));
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const list = (items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items });
/** 20 Nodes, each in its own rack, all in one cluster: 21 label HyperNodes. */
const nodes = (count: number) => Array.from({ length: count }, (_, i) => node(`node${String(i).padStart(2, '0')}`, { [RACK]: `r${i}`, [CLUSTER]: 'c0' }));
const config = (maxDeletePercent?: number) =>
  `networkTopologyDiscovery:\n${TOPOLOGY_A3_ENTRY}${maxDeletePercent === undefined ? '' : `    maxDeletePercent: ${maxDeletePercent}\n`}`;

async function renderItems(args: string[]): Promise<{ items: HyperNode[]; stderr: string }> {
  const result = await render(args, ARGV0);
  assert.is(result.code, 0, result.stderr);
  return { items: (parseYaml(result.stdout) as { items: HyperNode[] }).items, stderr: result.stderr };
}

/** What the cluster holds once the controller wrote the topology of all 20 Nodes. */
async function existingFor20(): Promise<HyperNode[]> {
  const { items, stderr } = await renderItems(['--config', file('full.conf', config()), '--nodes', file('all.json', list(nodes(20)))]);
  assert.is(stderr, '');
  assert.is(items.length, 21);
  return items;
}

test('12 of 21 label HyperNodes to go: a warning names the 12 held deletes and the maxDeletePercent that allows them', async () => {
  const existing = await existingFor20();
  const racksOf = (ns: number[]) => ns.map((i) => existing.find((hn) => hn.metadata.labels?.[RACK] === `r${i}`)!.metadata.name);
  const { items, stderr } = await renderItems(['--config', file('c.conf', config()), '--nodes', file('n.json', list(nodes(8))), '--existing', file('e.json', list(existing))]);
  assert.is(items.length, 9, 'stdout lists what would be written: 8 racks and the cluster');
  const lines = stderr.trimEnd().split('\n');
  assert.is(lines.length, 1, stderr);
  assert.match(lines[0]!, /^warning: Discovery source "label" would delete 12 of the 21 HyperNodes it owns \(57\.1%\), more than its maxDeletePercent of 50/);
  assert.match(lines[0]!, 'set maxDeletePercent to 58 or more on the "label" entry');
  const kept = lines[0]!.slice(lines[0]!.indexOf('The controller would keep: ') + 'The controller would keep: '.length).split(', ');
  assert.equal(kept.sort(), racksOf([8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]).sort());
});

test('no warning with maxDeletePercent raised to 60, nor without --existing', async () => {
  const existing = await existingFor20();
  const raised = await renderItems(['--config', file('c.conf', config(60)), '--nodes', file('n.json', list(nodes(8))), '--existing', file('e.json', list(existing))]);
  assert.is(raised.stderr, '');
  const fresh = await renderItems(['--config', file('c.conf', config()), '--nodes', file('n.json', list(nodes(8)))]);
  assert.is(fresh.stderr, '');
});

test('a maxDeletePercent outside 0–100 fails with a message naming the source and the field', async () => {
  for (const bad of ['101', '-1', '"50%"', '12.5']) {
    const result = await render(['--config', file('c.conf', `networkTopologyDiscovery:\n${TOPOLOGY_A3_ENTRY}    maxDeletePercent: ${bad}\n`), '--nodes', file('n.json', list(nodes(2)))], ARGV0);
    assert.is(result.code, 1, bad);
    assert.is(result.stdout, '');
    assert.match(result.stderr, /source "label".*maxDeletePercent: .* is not an integer from 0 to 100/, result.stderr);
  }
});

test.run();
