// The top-level `health` mapping of the discovery document (docs/health.md):
// absent means the defaults; every bad value fails the whole document with
// an error naming the key to change, so the settings in force stay.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DEFAULT_HEALTH,
  DEFAULT_LABEL_GRACE_PERIOD_MS,
  DEFAULT_LINK_GRACE_PERIOD_MS,
  DEFAULT_MAX_TAINT_PERCENT,
  DEFAULT_TAINT_AFTER_MS,
} from '../../../src/hypernode/config/health-config.ts';
import { parseConfig } from '../../../src/hypernode/config/loader.ts';

const health = (yaml: string) => parseConfig(`${yaml}\nnetworkTopologyDiscovery: []\n`).health;

test('absent, null or empty: NodesReady off, FabricHealthy on, 30 minute link and label grace periods, no taint', () => {
  assert.equal(parseConfig('networkTopologyDiscovery: []\n').health, {
    nodes: false,
    fabric: true,
    linkGracePeriodMs: 30 * 60_000,
    labelGracePeriodMs: 30 * 60_000,
    maxTaintPercent: 10,
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
    maxTaintPercent: 10,
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
    'failed to parse config: health has unknown keys "node"; known: nodes, fabric, linkGracePeriod, labelGracePeriod, taint, maxTaintPercent',
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

test('taint: off unless written; a mapping turns it on, {} with the defaults; maxTaintPercent is read', () => {
  assert.is(health('health: {taint: null}').taint, undefined);
  assert.equal(health('health: {taint: {}}').taint, {
    key: 'topology.volcano.sh/fabric-unreachable',
    effect: 'NoSchedule',
    afterMs: 2 * 60_000,
  });
  assert.is(DEFAULT_TAINT_AFTER_MS, 2 * 60_000);
  assert.is(DEFAULT_MAX_TAINT_PERCENT, 10);
  assert.equal(
    health('health: {taint: {key: example.com/ib-down, effect: PreferNoSchedule, after: 45s}, maxTaintPercent: 3}'),
    {
      ...DEFAULT_HEALTH,
      taint: { key: 'example.com/ib-down', effect: 'PreferNoSchedule', afterMs: 45_000 },
      maxTaintPercent: 3,
    },
  );
  assert.is(health('health: {taint: {after: 0s}}').taint?.afterMs, 0);
});

test('a bad taint fails the document: NoExecute refused saying why, a key that is no taint key, after past the link grace period', () => {
  const fails = (yaml: string, message: string) =>
    assert.throws(
      () => health(yaml),
      (err: Error) => err.message === message,
      yaml,
    );
  fails(
    'health: {taint: {effect: NoExecute}}',
    'failed to parse config: health.taint.effect NoExecute is refused: it would evict the running pods of every Node whose links are missing, ' +
      'and a switch reboot or a reseated cable would kill the jobs on its hosts; use NoSchedule (no new pods) or PreferNoSchedule (new pods avoid the Node)',
  );
  fails(
    'health: {taint: {effect: NoAdmit}}',
    'failed to parse config: health.taint.effect must be NoSchedule or PreferNoSchedule, got "NoAdmit"',
  );
  fails(
    'health: {taint: {key: "not a key"}}',
    'failed to parse config: health.taint.key must be a taint key such as "topology.volcano.sh/fabric-unreachable" (an optional DNS prefix and "/", then at most 63 letters, digits, "-", "_" or "."), got "not a key"',
  );
  fails(
    'health: {taint: {key: node.kubernetes.io/unreachable}}',
    'failed to parse config: health.taint.key "node.kubernetes.io/unreachable" is under a prefix Kubernetes keeps for its own components (kubernetes.io, k8s.io), ' +
      'whose taints the controller must never take for its own; use a key of your domain or "topology.volcano.sh/fabric-unreachable"',
  );
  fails(
    'health: {taint: {after: 30m}}',
    'failed to parse config: health.taint.after (30m0s) must be shorter than health.linkGracePeriod (30m0s): ' +
      'a link missing for the grace period is forgotten and its host leaves the topology, so no host could ever be tainted; lower taint.after or raise linkGracePeriod',
  );
  fails(
    'health: {linkGracePeriod: 0s, taint: {}}',
    'failed to parse config: health.taint.after (2m0s) must be shorter than health.linkGracePeriod (0s): ' +
      'a link missing for the grace period is forgotten and its host leaves the topology, so no host could ever be tainted; lower taint.after or raise linkGracePeriod',
  );
  fails(
    'health: {taint: {after: 2}}',
    'failed to parse config: health.taint.after must be a duration such as "30m" or "0s", got 2',
  );
  fails(
    'health: {taint: {keys: a}}',
    'failed to parse config: health.taint has unknown keys "keys"; known: key, effect, after',
  );
  fails(
    'health: {taint: true}',
    'failed to parse config: health.taint must be a mapping, e.g. "taint: {key: topology.volcano.sh/fabric-unreachable, effect: NoSchedule, after: 2m}"',
  );
  fails(
    'health: {maxTaintPercent: 150}',
    "failed to parse config: health.maxTaintPercent must be an integer from 0 to 100 (the share of the Nodes a source's fabrics connect, in percent, that may be tainted at once), got 150",
  );
});

test.run();
