// The top-level `health` mapping of the discovery document (docs/health.md):
// absent means the defaults; every bad value fails the whole document with
// an error naming the key to change, so the settings in force stay.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DEFAULT_HEALTH,
  DEFAULT_LABEL_GRACE_PERIOD_MS,
  DEFAULT_LINK_GRACE_PERIOD_MS,
} from '../../../src/hypernode/config/health-config.ts';
import { parseConfig } from '../../../src/hypernode/config/loader.ts';

const health = (yaml: string) => parseConfig(`${yaml}\nnetworkTopologyDiscovery: []\n`).health;

test('absent, null or empty: NodesReady off, FabricHealthy on, 30 minute link and label grace periods', () => {
  assert.equal(parseConfig('networkTopologyDiscovery: []\n').health, {
    nodes: false,
    fabric: true,
    linkGracePeriodMs: 30 * 60_000,
    labelGracePeriodMs: 30 * 60_000,
  });
  assert.equal(health('health:'), DEFAULT_HEALTH);
  assert.equal(health('health: {}'), DEFAULT_HEALTH);
  assert.is(DEFAULT_LINK_GRACE_PERIOD_MS, 30 * 60_000);
  assert.is(DEFAULT_LABEL_GRACE_PERIOD_MS, 30 * 60_000);
});

test('nodes, fabric (YAML 1.1 booleans), linkGracePeriod and labelGracePeriod (Go durations) are read; health alone in a document counts', () => {
  assert.equal(health('health: {nodes: yes, fabric: off, linkGracePeriod: 1h30m, labelGracePeriod: 45m}'), {
    nodes: true,
    fabric: false,
    linkGracePeriodMs: 90 * 60_000,
    labelGracePeriodMs: 45 * 60_000,
  });
  assert.equal(health('health: {linkGracePeriod: 0s}').linkGracePeriodMs, 0);
  assert.equal(health('health: {labelGracePeriod: 0s}').labelGracePeriodMs, 0);
  assert.equal(parseConfig('health: {nodes: true}\n').health.nodes, true);
});

test('a bad health fails the document, naming the key and what it takes', () => {
  const fails = (yaml: string, message: string) =>
    assert.throws(
      () => health(yaml),
      (err: Error) => err.message === message,
      yaml,
    );
  fails('health: [nodes]', 'failed to parse config: health must be a mapping, e.g. "health: {nodes: true}"');
  fails(
    'health: {node: true}',
    'failed to parse config: health has unknown keys "node"; known: nodes, fabric, linkGracePeriod, labelGracePeriod',
  );
  fails(
    'health: {labelGracePeriod: 5}',
    'failed to parse config: health.labelGracePeriod must be a duration such as "30m" or "0s", got 5',
  );
  fails('health: {nodes: "sure"}', 'failed to parse config: health.nodes must be true or false, got "sure"');
  fails('health: {fabric: 1}', 'failed to parse config: health.fabric must be true or false, got 1');
  fails(
    'health: {linkGracePeriod: 30}',
    'failed to parse config: health.linkGracePeriod must be a duration such as "30m" or "0s", got 30',
  );
  fails(
    'health: {linkGracePeriod: soon}',
    'failed to parse config: health.linkGracePeriod must be a duration such as "30m" or "0s", got "soon"',
  );
  fails(
    'health: {linkGracePeriod: -5m}',
    'failed to parse config: health.linkGracePeriod must be a duration such as "30m" or "0s", got "-5m"',
  );
});

test.run();
