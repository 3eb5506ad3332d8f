import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  builtinDiscoverers,
  lookupDiscoverer,
  newDiscovererRegistry,
} from '../../../src/hypernode/discovery/registry.ts';
import { labelDiscovererFactory } from '../../../src/hypernode/discovery/label/label-discoverer.ts';
import { graphDiscovererFactory } from '../../../src/hypernode/discovery/graph/graph-discoverer.ts';
import { ufmDiscovererFactory } from '../../../src/hypernode/discovery/ufm/ufm-discoverer.ts';
import { lldpDiscovererFactory } from '../../../src/hypernode/discovery/lldp/lldp-discoverer.ts';
import { ibnetdiscoverDiscovererFactory } from '../../../src/hypernode/discovery/ibnetdiscover/ibnetdiscover-discoverer.ts';
import { ScriptedSource } from '../../support/controller-fixtures.ts';

test('the built-in registry has exactly graph, ibnetdiscover, label, lldp and ufm', () => {
  assert.equal([...builtinDiscoverers.keys()].sort(), ['graph', 'ibnetdiscover', 'label', 'lldp', 'ufm']);
  assert.is(lookupDiscoverer(builtinDiscoverers, 'ibnetdiscover'), ibnetdiscoverDiscovererFactory);
  assert.is(lookupDiscoverer(builtinDiscoverers, 'graph'), graphDiscovererFactory);
  assert.is(lookupDiscoverer(builtinDiscoverers, 'lldp'), lldpDiscovererFactory);
  assert.is(lookupDiscoverer(builtinDiscoverers, 'label'), labelDiscovererFactory);
  assert.is(lookupDiscoverer(builtinDiscoverers, 'ufm'), ufmDiscovererFactory);
});

test('an unregistered key is rejected with Go’s message, the near miss and the known keys', () => {
  const cases: [string, string][] = [
    ['roce', ''],
    ['Label', 'did you mean "label"? '],
    ['UFM', 'did you mean "ufm"? '],
    ['grpah', 'did you mean "graph"? '],
    ['ibnetdiscovery', 'did you mean "ibnetdiscover"? '],
    ['', ''],
  ];
  for (const [key, near] of cases) {
    assert.throws(
      () => lookupDiscoverer(builtinDiscoverers, key),
      (err: Error) =>
        err.message ===
        `unsupported discoverer type: ${key} (${near}the sources are graph, ibnetdiscover, label, lldp, ufm)`,
      key,
    );
  }
});

test('a test registry replaces the built-ins', () => {
  const fake = new ScriptedSource('label');
  const registry = newDiscovererRegistry({ label: fake.factory });
  assert.is(lookupDiscoverer(registry, 'label'), fake.factory);
  assert.throws(() => lookupDiscoverer(registry, 'ufm'), /unsupported discoverer type: ufm/);
});

test.run();
