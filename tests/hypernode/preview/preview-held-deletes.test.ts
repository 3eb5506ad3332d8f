// The offline preview behind `render` reports the deletes the controller's
// mass-delete guard would hold, as a warning (render prints it as a
// `warning:` line on stderr) naming them and saying how to allow them, and
// keeps those HyperNodes in what it prints (every output follows the tree as
// kept). It has something to report only when it is given the existing HyperNodes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nullLogger } from '../../../src/log.ts';
import type { HyperNode } from '../../../src/hypernode/model/hypernode-types.ts';
import { parseConfig } from '../../../src/hypernode/config/loader.ts';
import { builtinDiscoverers } from '../../../src/hypernode/discovery/registry.ts';
import { PreviewError, previewDiscovery } from '../../../src/hypernode/preview/preview.ts';
import { CLUSTER, RACK, TOPOLOGY_A3_ENTRY, node } from '../../e2e/cluster.ts';

const deps = {
  registry: builtinDiscoverers,
  secrets: { namespace: 'volcano-system', get: () => Promise.reject(new Error('no Secrets offline')) },
  logger: nullLogger,
};
/** Each Node in its own rack, all in one cluster: `count` rack HyperNodes and 1 cluster HyperNode. */
const nodes = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    node(`node${String(i).padStart(2, '0')}`, { [RACK]: `r${i}`, [CLUSTER]: 'c0' }),
  );
const config = (maxDeletePercent?: number) =>
  parseConfig(
    `networkTopologyDiscovery:\n${TOPOLOGY_A3_ENTRY}${maxDeletePercent === undefined ? '' : `    maxDeletePercent: ${maxDeletePercent}\n`}`,
  );

/** What the cluster holds once the controller wrote the topology of 20 Nodes: 21 label HyperNodes. */
async function existingFor20(): Promise<HyperNode[]> {
  const { hyperNodes, warnings } = await previewDiscovery({ config: config(), nodes: nodes(20), existing: [] }, deps);
  assert.equal(warnings, []);
  assert.is(hyperNodes.length, 21);
  return hyperNodes;
}

test('12 of 21 label HyperNodes to go: one warning names the 12 held deletes and the maxDeletePercent that allows them', async () => {
  const existing = await existingFor20();
  const rackName = (i: number) => existing.find((hn) => hn.metadata.labels?.[RACK] === `r${i}`)!.metadata.name;
  const { hyperNodes, warnings } = await previewDiscovery({ config: config(), nodes: nodes(8), existing }, deps);
  assert.is(hyperNodes.length, 21, 'what the cluster would hold: 8 racks and the cluster written, 12 racks kept');
  assert.is(warnings.length, 1, warnings.join('\n'));
  assert.match(
    warnings[0]!,
    /^Discovery source "label" would delete 12 of the 21 HyperNodes it owns \(57\.1%\), more than its maxDeletePercent of 50/,
  );
  assert.match(warnings[0]!, 'set maxDeletePercent to 58 or more on the "label" entry of networkTopologyDiscovery');
  const kept = warnings[0]!.split('The controller would keep: ')[1]!.split(', ');
  assert.equal(kept.sort(), Array.from({ length: 12 }, (_, i) => rackName(8 + i)).sort());
});

test('no warning with maxDeletePercent raised to 60, nor without the existing HyperNodes', async () => {
  const existing = await existingFor20();
  assert.equal((await previewDiscovery({ config: config(60), nodes: nodes(8), existing }, deps)).warnings, []);
  assert.equal((await previewDiscovery({ config: config(), nodes: nodes(8), existing: [] }, deps)).warnings, []);
});

test('a maxDeletePercent outside 0–100 fails the source with a message naming it and the field', async () => {
  for (const bad of [101, -1, '"50%"', 12.5]) {
    const err = await previewDiscovery({ config: config(bad as number), nodes: nodes(2), existing: [] }, deps).catch(
      (e: unknown) => e,
    );
    assert.instance(err, PreviewError, String(bad));
    assert.match((err as Error).message, /source "label".*maxDeletePercent: .* is not an integer from 0 to 100/);
  }
});

test.run();
