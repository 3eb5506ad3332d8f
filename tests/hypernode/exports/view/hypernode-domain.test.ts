// What the HTML view labels a HyperNode with: the label value a label source
// wrote (list form and profiles), the switch names the fabric layer annotates a
// group with, else (a HyperNode written before that annotation) the switch id it
// is named after (UFM fabric mode and LLDP with their fabric label, the graph
// source without one), and nothing for a HyperNode that does not say.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HyperNode } from '../../../../src/hypernode/model/hypernode-types.ts';
import { hyperNodeDomain } from '../../../../src/hypernode/exports/view/hypernode-domain.ts';

const SOURCE = 'volcano.sh/network-topology-source';
const hn = (
  name: string,
  labels: Record<string, string>,
  tierName?: string,
  annotations?: Record<string, string>,
): HyperNode => ({
  apiVersion: 'topology.volcano.sh/v1alpha1',
  kind: 'HyperNode',
  metadata: { name, labels, ...(annotations ? { annotations } : {}) },
  spec: { tier: 1, members: [], ...(tierName ? { tierName } : {}) },
});

test('a label source HyperNode: the Node label it was formed from, whatever the profile or tierName', () => {
  assert.equal(
    hyperNodeDomain(
      hn(
        'hypernode-datacenter-tier1-x2t29',
        { [SOURCE]: 'label', 'volcano.sh/hypernode': 'rack-1' },
        'volcano.sh/hypernode',
      ),
    ),
    {
      labelKey: 'volcano.sh/hypernode',
      value: 'rack-1',
    },
  );
  const profiled = hn(
    'hypernode-gb200-tier1-abcde',
    { [SOURCE]: 'label', 'volcano.sh/network-topology-profile': 'gb200', 'nvidia.com/gpu.clique': 'c7' },
    'nvl-domain',
  );
  assert.equal(hyperNodeDomain(profiled), { labelKey: 'nvidia.com/gpu.clique', value: 'c7' });
});

test('a label added by hand does not displace the one the tierName names', () => {
  const edited = hn(
    'hypernode-datacenter-tier1-x2t29',
    { [SOURCE]: 'label', 'zz.example.com/team': 'ml', 'volcano.sh/hypernode': 'rack-1', 'a.example.com/owner': 'ops' },
    'volcano.sh/hypernode',
  );
  assert.equal(hyperNodeDomain(edited), { labelKey: 'volcano.sh/hypernode', value: 'rack-1' });
});

test('a fabric group: the switch id after <fabric>-<tierName>-, with or without a fabric label', () => {
  assert.equal(
    hyperNodeDomain(hn('pod-a-leaf-e41d2d0300a1b2c3', { [SOURCE]: 'ufm', 'volcano.sh/ufm-fabric': 'pod-a' }, 'leaf')),
    { value: 'e41d2d0300a1b2c3' },
  );
  assert.equal(
    hyperNodeDomain(hn('hall-1-spine-sw-spine-01', { [SOURCE]: 'lldp', 'volcano.sh/lldp-fabric': 'hall-1' }, 'spine')),
    { value: 'sw-spine-01' },
  );
  // The graph source writes no fabric label: the first -<tierName>- ends the fabric.
  assert.equal(hyperNodeDomain(hn('lab-leaf-leaf-a1', { [SOURCE]: 'graph' }, 'leaf')), { value: 'leaf-a1' });
});

test('a fabric group with its switch names annotated: the names, not the id', () => {
  const annotated = hn('pod-a-leaf-e41d2d0300a1b2c3', { [SOURCE]: 'ufm', 'volcano.sh/ufm-fabric': 'pod-a' }, 'leaf', {
    'volcano.sh/fabric-switches': 'su01-leaf-r1 +1',
  });
  assert.equal(hyperNodeDomain(annotated), { value: 'su01-leaf-r1 +1' });
  // A hand-made HyperNode is no source's: an annotation alone does not make it a fabric group.
  assert.is(hyperNodeDomain(hn('rack-manual', {}, 'rack', { 'volcano.sh/fabric-switches': 'sw-1' })), undefined);
});

test('nothing to say: a hand-made HyperNode, UFM legacy names, a name that does not follow the fabric form', () => {
  assert.is(hyperNodeDomain(hn('rack-manual', {}, 'rack')), undefined);
  assert.is(hyperNodeDomain(hn('leaf-hn-0', { [SOURCE]: 'ufm' })), undefined);
  assert.is(
    hyperNodeDomain(hn('other-leaf-x', { [SOURCE]: 'ufm', 'volcano.sh/ufm-fabric': 'pod-a' }, 'leaf')),
    undefined,
  );
});

test.run();
