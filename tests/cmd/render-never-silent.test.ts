// `render` never ends in exit 0 with nothing printed: a configuration that
// enables no source (empty, a fragment of the docs, `enable:` misspelled),
// label keys no Node carries, a misspelled source name, two entries of one
// source and a YAML error each fail with a message naming what to change;
// the configuration warnings the controller logs (unknown keys, documents it
// ignores) are printed with their line; and the warnings gathered before a
// source fails are printed with the failure.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { render } from '../../src/cmd/render.ts';
import { scratchDir } from './scratch-dir.ts';

const ARGV0 = 'vc-hypernode-controller-manager';
const dir = scratchDir('hn-render-silent-');

const RACK_TYPES =
  'networkTopologyTypes:\n  racks:\n    - nodeLabel: example.com/rack\n    - nodeLabel: kubernetes.io/hostname\n';
const NODES = JSON.stringify({
  apiVersion: 'v1',
  kind: 'List',
  items: ['n1', 'n2', 'n3'].map((name, i) => ({
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'example.com/rack': `r${i % 2}` } },
  })),
});

/** `render -o tree` of the configuration text over three Nodes on two racks. */
async function renderText(config: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return render(
    ['--config', dir.write('conf.yaml', config), '--nodes', dir.write('nodes.json', NODES), '-o', 'tree'],
    ARGV0,
  );
}

const indent = (text: string, by: string) => text.replace(/^(?=.)/gm, by);
const labelEntry = (types: string, extra = '') =>
  `networkTopologyDiscovery:\n  - source: label\n    enabled: true\n${extra}    config:\n${indent(types, '      ')}`;

/** The run failed: exit 1, nothing on stdout, and stderr ends with `error: <matching>`. */
function assertFails(result: { code: number; stdout: string; stderr: string }, error: RegExp): void {
  assert.is(result.code, 1, result.stderr);
  assert.is(result.stdout, '');
  assert.match(result.stderr, error);
}

test('a fragment of the docs as the whole file names the top-level key it lacks', async () => {
  for (const fragment of [RACK_TYPES, `config:\n${indent(RACK_TYPES, '  ')}`]) {
    const key = fragment.split(':')[0];
    assertFails(
      await renderText(fragment),
      new RegExp(
        `^error: \\S+conf\\.yaml: the configuration has no top-level key networkTopologyDiscovery \\(its keys: ${key};[^\\n]*\\): it must start with the key networkTopologyDiscovery`,
        'm',
      ),
    );
  }
});

test('a list of entries as the whole file says to put it under networkTopologyDiscovery', async () => {
  const entries = `- source: label\n  enabled: true\n  config:\n${indent(RACK_TYPES, '    ')}`;
  assertFails(
    await renderText(entries),
    /^error: \S+conf\.yaml: failed to parse config: the document is a list of 1 source entries, not a configuration: put the list under the top-level key networkTopologyDiscovery \(a line "networkTopologyDiscovery:" above it, the entries indented\)$/m,
  );
});

test('an empty file and an empty list say what to write', async () => {
  assertFails(
    await renderText(''),
    /error: \S+: the configuration is empty: it must start with the key networkTopologyDiscovery, a list of sources, e\.g\.\nnetworkTopologyDiscovery:\n {2}- source: label/,
  );
  assertFails(
    await renderText('networkTopologyDiscovery: []\n'),
    /error: \S+: networkTopologyDiscovery lists no source: add an entry/,
  );
});

test('`enable: true` is warned about with its line and the run fails: no source is enabled', async () => {
  const result = await renderText(labelEntry(RACK_TYPES).replace('enabled: true', 'enable: true'));
  assertFails(
    result,
    /error: \S+: no source is enabled, so nothing would be published: networkTopologyDiscovery\[0\] \(source "label", line 2\) is not enabled \(it has "enable", not "enabled"/,
  );
  assert.match(
    result.stderr,
    /Ignoring unknown keys in the discovery configuration; check their spelling where="networkTopologyDiscovery\[0\] \(source \\"label\\", line 2\)" unknown=\["enable"\]/,
  );
});

test("an unknown key in a source's config is warned about with the entry and line it comes from", async () => {
  const result = await renderText(labelEntry(`tierOrder: bottom-up\n${RACK_TYPES}`));
  assert.is(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /Ignoring unknown keys in the discovery configuration; check their spelling entry="networkTopologyDiscovery\[0\] \(source \\"label\\", line 2\)" source="label" where="label config" unknown=\["tierOrder"\]/,
  );
});

test('label keys no Node carries: a warning when something is still published, a failure naming the counts when nothing is', async () => {
  const zoned = await renderText(
    labelEntry(
      `networkTopologyTypes:\n  racks:\n    - nodeLabel: example.com/zone\n    - nodeLabel: example.com/rack\n    - nodeLabel: kubernetes.io/hostname\n`,
    ),
  );
  assert.is(zoned.code, 0, zoned.stderr);
  assert.match(zoned.stdout, /tier=1 \(example\.com\/rack\)/);
  assert.match(
    zoned.stderr,
    /^warning: source "label": no Node carries example\.com\/zone \(type "racks"\)[^\n]*Label keys: example\.com\/zone \(type "racks"\) on 0 of 3 Nodes, example\.com\/rack \(type "racks"\) on 3 of 3 Nodes$/m,
  );
  assertFails(
    await renderText(labelEntry(RACK_TYPES.replace('example.com/rack', 'example.com/rak'))),
    /^error: nothing would be published: the enabled sources \("label"\) describe no HyperNode for these 3 Nodes; label keys: example\.com\/rak \(type "racks"\) on 0 of 3 Nodes \(label the Nodes, or fix the nodeLabel keys\)$/m,
  );
});

test('a misspelled source name gets the near one, two entries of one source name both, a YAML error its line and column', async () => {
  assertFails(
    await renderText(labelEntry(RACK_TYPES).replace('source: label', 'source: Label')),
    /unsupported discoverer type: Label \(did you mean "label"\? the sources are graph, ibnetdiscover, label, lldp, ufm\)/,
  );
  const twice = `${labelEntry(RACK_TYPES)}${labelEntry(RACK_TYPES).replace('networkTopologyDiscovery:\n', '')}`;
  assertFails(
    await renderText(twice),
    /source "label" has 2 enabled entries, networkTopologyDiscovery\[0\] \(source "label", line 2\) and networkTopologyDiscovery\[1\] \(source "label", line 9\); keep one/,
  );
  assertFails(
    await renderText(labelEntry(RACK_TYPES).replace('    config:', '    config:\n      - a')),
    /^error: \S+conf\.yaml: failed to parse config: line \d+, column \d+: \S/m,
  );
});

test('a Node list that is not YAML names the file, line and column', async () => {
  const nodes = dir.write('nodes.yaml', 'items:\n  - metadata: {name: a}\n   - metadata: {name: b}\n');
  const result = await render(['--config', dir.write('conf.yaml', labelEntry(RACK_TYPES)), '--nodes', nodes], ARGV0);
  assertFails(result, /^error: \S+nodes\.yaml: not valid YAML or JSON: line 3, column \d+: \S/m);
});

test('a configuration followed by its Secret reads the configuration, naming the document it ignores', async () => {
  const result = await renderText(
    `${labelEntry(RACK_TYPES)}---\napiVersion: v1\nkind: Secret\nmetadata: {name: ufm-credentials}\n`,
  );
  assert.is(result.code, 0, result.stderr);
  assert.match(result.stdout, /tier=1 \(example\.com\/rack\)/);
  assert.match(
    result.stderr,
    /Ignoring the documents after the first in the discovery configuration, as Go does; only the first is read documents=\["line 10: Secret ufm-credentials"\]/,
  );
});

test('when a source fails, the warnings gathered before it are printed with the failure', async () => {
  const layer = (n: number) => `topology.k8s.aws/network-node-layer-${n}`;
  const nodes = JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      { metadata: { name: 'half', labels: { [layer(1)]: 'nn-1' } } },
      { metadata: { name: 'p5', labels: { [layer(1)]: 'nn-1', [layer(2)]: 'nn-2', [layer(3)]: 'nn-3' } } },
    ],
  });
  const config = `networkTopologyDiscovery:\n  - source: label\n    enabled: true\n    config: {networkTopologyTypes: {aws: {preset: aws}}}\n  - source: ufm\n    enabled: true\n    config: {endpoint: https://ufm.example:8443}\n`;
  const result = await render(
    ['--config', dir.write('conf.yaml', config), '--nodes', dir.write('nodes.json', nodes)],
    ARGV0,
  );
  assertFails(result, /^error: source "ufm": /m);
  assert.match(
    result.stderr,
    /^warning: source "label": 1 Node\(s\) left out of the topology \(missing-level\)[^\n]*half/m,
  );
});

test.run();
