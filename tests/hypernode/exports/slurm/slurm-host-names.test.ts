// The host names Slurm's files give Nodes (exports/slurm/slurm-host-names.ts)
// and the labels they come from (discovery/host-name-labels.ts): every
// enabled fabric source that maps its hosts through a Node label names one,
// in the configuration's order; a Node gets the value of the first it
// carries, else none (the caller writes its Node name and says so).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../../../src/hypernode/config/loader.ts';
import { hostNameLabels } from '../../../../src/hypernode/discovery/host-name-labels.ts';
import { slurmHostNames } from '../../../../src/hypernode/exports/slurm/slurm-host-names.ts';
import type { NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';

const IB_HOST = 'example.com/ib-host';
const ROCE_HOST = 'example.com/roce-host';

test('each enabled fabric source that maps hosts through a label names it, in order and once; others name none', () => {
  const config = parseConfig(`networkTopologyDiscovery:
  - source: label
    enabled: true
    config: {networkTopologyTypes: {rack: [{nodeLabel: example.com/rack}]}}
  - source: ibnetdiscover
    enabled: true
    config: {fabric: compute, hostMapping: {nodeLabel: ${IB_HOST}}}
  - source: lldp
    enabled: true
    config: {hostMapping: {nodeLabel: ${ROCE_HOST}, lowercase: true}}
  - source: graph
    enabled: true
    config: {fabric: lab, hostMapping: {nodeLabel: ${IB_HOST}}}
  - source: ufm
    enabled: false
    config: {hostMapping: {nodeLabel: example.com/ufm-host}}
`);
  assert.equal(hostNameLabels(config), [IB_HOST, ROCE_HOST]);
  assert.equal(
    hostNameLabels(
      parseConfig(
        'networkTopologyDiscovery:\n  - source: ufm\n    enabled: true\n    config: {hostMapping: {lowercase: true}}\n',
      ),
    ),
    [],
    'a mapping by Node name names no label',
  );
});

test('a host mapping that does not parse fails, naming its source and field', () => {
  const config = parseConfig(
    'networkTopologyDiscovery:\n  - source: graph\n    enabled: true\n    config: {fabric: lab, hostMapping: {nodeLabel: 7}}\n',
  );
  assert.throws(() => hostNameLabels(config), /^graph: config\.hostMapping\.nodeLabel must be a non-empty string$/);
});

test('a Node gets the value of the first host label it carries, else none', () => {
  const nodes: NodeMeta[] = [
    { metadata: { name: 'i-1', labels: { [IB_HOST]: 'gpu001', [ROCE_HOST]: 'gpu001-roce' } } },
    { metadata: { name: 'i-2', labels: { [ROCE_HOST]: 'gpu002' } } },
    { metadata: { name: 'i-3', labels: { [IB_HOST]: '' } } },
  ];
  const host = slurmHostNames([IB_HOST, ROCE_HOST], nodes);
  assert.equal(['i-1', 'i-2', 'i-3', 'i-4'].map(host), ['gpu001', 'gpu002', undefined, undefined]);
  assert.is(slurmHostNames([], nodes)('i-1'), undefined);
});

test.run();
