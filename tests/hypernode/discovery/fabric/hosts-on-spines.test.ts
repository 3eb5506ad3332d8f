// The report of a spine that carries hosts, shared by the fabric sources: a
// switch with hosts cabled to two or more switches with hosts that are not
// cabled to each other is named with its hosts, those leaves and the change;
// leaves cabled to each other (an MLAG pair) and a fabric cabled as designed
// are not.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hostsOnSpines } from '../../../../src/hypernode/discovery/fabric/hosts-on-spines.ts';
import type { FabricLink } from '../../../../src/hypernode/discovery/fabric/fabric-graph.ts';
import { hostLink, swLink } from './fabric-links.ts';

const NAMES = new Map([
  ['s1', 'SPINE-1'],
  ['s2', 'SPINE-2'],
  ['l1', 'LEAF-1'],
  ['l2', 'LEAF-2'],
]);
/** Two leaves of two hosts each under two spines. */
const fatTree: FabricLink[] = [
  ...['l1', 'l2'].flatMap((l) => [swLink(l, 's1'), swLink('s2', l)]),
  hostLink('gpu1', 'l1'),
  hostLink('gpu2', 'l1'),
  hostLink('gpu3', 'l2'),
  hostLink('gpu4', 'l2'),
];

test('a fabric cabled as designed reports nothing', () => {
  assert.equal(hostsOnSpines(fatTree, NAMES), []);
});

test('hosts on a spine: the spine is named with its hosts, the leaves it is cabled to and the change that places them', () => {
  const stor = (n: number): FabricLink => {
    const l = hostLink(`stor0${n}`, 's1');
    // Either end may come first: a source lists a cable as it reads it.
    return n % 2 ? l : { a: l.b, b: l.a };
  };
  assert.equal(hostsOnSpines([...fatTree, ...[1, 2, 3, 4].map(stor)], NAMES), [
    'switch SPINE-1 is cabled to hosts (stor01, stor02, stor03 and 1 more) and to 2 switches cabled to hosts (LEAF-1, LEAF-2): it counts as a leaf, so no tier sits over them; if it is a spine, cable its hosts to leaves',
  ]);
});

test('leaves cabled to each other (an MLAG pair) and a spine of one leaf are no spine with hosts', () => {
  const mlag = [...fatTree, swLink('l1', 'l2'), hostLink('gpu5', 's1')];
  assert.equal(hostsOnSpines(mlag, NAMES), []);
  assert.equal(hostsOnSpines([swLink('l1', 's1'), hostLink('gpu1', 'l1'), hostLink('stor01', 's1')], NAMES), []);
});

test.run();
