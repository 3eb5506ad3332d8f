// The legend's levels: one per tierName (or tier, where there is none),
// highest tier first, with the label keys that formed them; a tierName keeps
// its colour from page to page (unless it collides with another level of the
// page), and the levels of one page differ in colour.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LEVEL_COLOURS, levelsOf } from '../../../../src/hypernode/exports/view/view-levels.ts';

test('one level per tierName, highest tier first, with its tiers and label keys', () => {
  const levels = levelsOf([
    { tier: 1, tierName: 'rack', domainLabel: 'example.com/rack' },
    { tier: 2, tierName: 'spine', domainLabel: 'example.com/spine' },
    { tier: 1, tierName: 'rack', domainLabel: 'example.com/rack-b' },
    { tier: 2 },
  ]);
  assert.equal(
    levels.map((l) => [l.tierName, l.tiers, l.labelKeys]),
    [
      ['spine', [2], ['example.com/spine']],
      ['tier 2', [2], []],
      ['rack', [1], ['example.com/rack', 'example.com/rack-b']],
    ],
  );
});

test('a tierName keeps its colour beside levels it does not collide with; one page never repeats a colour', () => {
  const alone = levelsOf([{ tier: 1, tierName: 'volcano.sh/hypernode' }]);
  const tierNames = [
    'zone',
    'volcano.sh/hypercluster',
    'volcano.sh/hypernode',
    'leaf',
    'spine',
    'core',
    'nvl-domain',
    'tier 9',
  ];
  const crowded = levelsOf(tierNames.map((tierName, i) => ({ tier: 10 - i, tierName })));
  const colours = crowded.map((l) => l.colour);
  assert.is(new Set(colours).size, LEVEL_COLOURS, `distinct: ${colours}`);
  // Whichever colour a collision moved it to, a page with the same levels gives the same ones.
  assert.equal(levelsOf(tierNames.map((tierName, i) => ({ tier: 10 - i, tierName }))), crowded);
  const demo = levelsOf([
    { tier: 3, tierName: 'topology.example.com/zone' },
    { tier: 1, tierName: 'volcano.sh/hypernode' },
  ]);
  assert.is(
    demo.find((l) => l.tierName === 'volcano.sh/hypernode')!.colour,
    alone[0]!.colour,
    'the same colour alone and beside a zone',
  );
});

test.run();
