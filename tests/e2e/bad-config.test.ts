// Bad discovery ConfigMaps end to end (runServer in-process, chart RBAC): one
// running controller, the ConfigMap edited through more than fifteen broken
// variants in turn. Each is reported with a message naming the source or
// field (log line, and a Warning Event on the ConfigMap where the source or
// document is refused), none deletes a HyperNode, and the label source keeps
// working while another entry is broken (docs/differences-from-go.md items 3 and 4).
// Disabling a source or deleting the ConfigMap stops discovery but keeps its
// HyperNodes (docs/configuration.md, "What happens with bad input").

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { seriesValue } from '../../testing/prometheus-text.ts';
import {
  CLUSTER,
  CONFIG_MAP,
  NS,
  RACK,
  TOPOLOGY_A3_CONFIG,
  TOPOLOGY_A3_ENTRY,
  UFM_SECRET,
  assertNoDeletes,
  assertNoForbidden,
  describeWrites,
  groupOf,
  answeredHyperNodeWrites,
  hyperNodes,
  node,
  nodeCount,
  seedConfigMap,
  seedUfmSecret,
  setDiscoveryConfig,
  workedExampleConverged,
} from './cluster.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { session } from './session.ts';

const s = session(test);
const converge = s.converge.bind(s);
const startWorkedExample = () => s.startWorkedExample(TOPOLOGY_A3_CONFIG);

const doc = (...entries: string[]) => `networkTopologyDiscovery:\n${entries.join('')}`;
/** A label entry with the worked example's type plus extra lines under networkTopologyTypes. */
const labelWithTypes = (extra: string) => `${TOPOLOGY_A3_ENTRY}${extra}`;
const ufm = (lines: string) => `  - source: ufm\n    enabled: true\n${lines}`;
const GOOD_UFM_REF = `    credentials:\n      secretRef: {name: ${UFM_SECRET}, namespace: ${NS}}\n`;

interface Variant {
  what: string;
  /** The document under `volcano-controller.conf`; undefined removes the key. */
  conf: string | undefined;
  /** Must appear in the log after the edit. */
  expect: RegExp;
  /** A Warning Event on the ConfigMap is expected: `true` = its message matches `expect` too. */
  event?: true | RegExp;
}

const VARIANTS: Variant[] = [
  { what: 'not YAML', conf: 'networkTopologyDiscovery: [unclosed', expect: /failed to parse config: /, event: true },
  {
    what: 'a scalar document',
    conf: 'just some text',
    expect: /failed to parse config: the document must be a mapping/,
    event: true,
  },
  {
    what: 'networkTopologyDiscovery not a list',
    conf: 'networkTopologyDiscovery: label',
    expect: /networkTopologyDiscovery must be a list of sources/,
    event: true,
  },
  {
    what: 'key missing',
    conf: undefined,
    expect: /config key not found in ConfigMap: volcano-controller.conf/,
    event: true,
  },
  {
    what: 'enabled "true" quoted',
    conf: doc(TOPOLOGY_A3_ENTRY.replace('enabled: true', 'enabled: "true"')),
    expect: /networkTopologyDiscovery\[0\] \(source \\?"label\\?", line \d+\): enabled: must be a YAML boolean/,
    event: true,
  },
  {
    what: 'integer interval',
    conf: doc(
      TOPOLOGY_A3_ENTRY,
      ufm(`    interval: 600\n${GOOD_UFM_REF}    config: {endpoint: https://127.0.0.1:1}\n`),
    ),
    expect: /\(source \\?"ufm\\?", line \d+\): interval: 600 is a bare number/,
    event: true,
  },
  {
    what: 'interval 1d',
    conf: doc(TOPOLOGY_A3_ENTRY, ufm(`    interval: 1d\n${GOOD_UFM_REF}    config: {endpoint: https://127.0.0.1:1}\n`)),
    expect: /\(source \\?"ufm\\?", line \d+\): interval: string \\?"1d\\?" is not a Go duration/,
    event: true,
  },
  {
    what: 'unknown source roce enabled',
    conf: doc(TOPOLOGY_A3_ENTRY, '  - source: roce\n    enabled: true\n'),
    expect: /failed to create discoverer: unsupported discoverer type: roce/,
    event: true,
  },
  {
    what: 'ufm without endpoint',
    conf: doc(TOPOLOGY_A3_ENTRY, ufm(`${GOOD_UFM_REF}    config: {insecureSkipVerify: true}\n`)),
    expect: /ufm source: config.endpoint must be a string .* got nothing/,
    event: true,
  },
  {
    what: 'ufm endpoint a number',
    conf: doc(TOPOLOGY_A3_ENTRY, ufm(`${GOOD_UFM_REF}    config: {endpoint: 8080}\n`)),
    expect: /ufm source: config.endpoint must be a string .* got 8080/,
    event: true,
  },
  {
    what: 'ufm secret missing',
    conf: doc(
      TOPOLOGY_A3_ENTRY,
      ufm(
        `    credentials:\n      secretRef: {name: absent, namespace: ${NS}}\n    config: {endpoint: https://127.0.0.1:1}\n`,
      ),
    ),
    expect:
      /failed to get secret volcano-system\/absent[\s\S]*failed to start discoverer: UFM authentication credentials are not configured/,
    // The Event carries the start error only; the log line before it names the Secret.
    event: /source "ufm" is not running: failed to start discoverer: UFM authentication credentials are not configured/,
  },
  {
    what: 'ufm credentials not a mapping',
    conf: doc(TOPOLOGY_A3_ENTRY, ufm('    credentials: secret\n    config: {endpoint: https://127.0.0.1:1}\n')),
    expect: /\(source \\?"ufm\\?", line \d+\): credentials: must be a mapping/,
    event: true,
  },
  {
    what: 'label networkTopologyTypes a scalar',
    conf: doc('  - source: label\n    enabled: true\n    config:\n      networkTopologyTypes: topologyA3\n'),
    expect: /Cannot get networkTopologyTypes: networkTopologyTypes: expected a mapping/,
    event: true,
  },
  {
    what: 'nodeLabel items as plain strings',
    conf: doc(
      `  - source: label\n    enabled: true\n    config:\n      networkTopologyTypes:\n        topologyA3: [${CLUSTER}, ${RACK}, kubernetes.io/hostname]\n`,
    ),
    expect: /networkTopologyTypes.topologyA3\[0\]: expected a mapping \{nodeLabel: <key>\}/,
    event: true,
  },
  {
    what: 'label config a list',
    conf: doc('  - source: label\n    enabled: true\n    config: [topologyA3]\n'),
    expect: /\(source \\?"label\\?", line \d+\): config: must be a mapping/,
    event: true,
  },
  {
    what: 'empty source name',
    conf: doc(TOPOLOGY_A3_ENTRY, '  - source: ""\n    enabled: true\n'),
    expect:
      /failed to create discoverer: unsupported discoverer type: {2}\(the sources are graph, ibnetdiscover, label, lldp, ufm\)"?$/m,
    event: true,
  },
  {
    what: 'source a number',
    conf: doc(TOPOLOGY_A3_ENTRY, '  - source: 5\n    enabled: true\n'),
    expect: /networkTopologyDiscovery\[1\] \(line \d+\): source: must be a string/,
    event: true,
  },
  {
    what: 'type name longer than 20 bytes',
    conf: doc(
      labelWithTypes(
        '        averyveryverylongtypename:\n          - nodeLabel: example.com/rack\n          - nodeLabel: kubernetes.io/hostname\n',
      ),
    ),
    expect: /The length of topologyTypeName exceeds 20. topologyTypeName is averyveryverylongtypename/,
  },
  {
    what: 'duplicate labels in a type',
    conf: doc(
      labelWithTypes(
        '        twice:\n          - nodeLabel: example.com/rack\n          - nodeLabel: example.com/rack\n          - nodeLabel: kubernetes.io/hostname\n',
      ),
    ),
    expect: /The configMap format is incorrect, there are duplicate labels.* topologyTypeName="twice"/,
  },
  {
    what: 'type name that cannot form a DNS-1123 name',
    conf: doc(
      labelWithTypes(
        '        "topo.":\n          - nodeLabel: example.com/rack\n          - nodeLabel: kubernetes.io/hostname\n',
      ),
    ),
    expect: /not valid DNS-1123 subdomains; rename the type.* topologyTypeName="topo\."/,
  },
  {
    what: 'networkTopologyTypes misspelled',
    conf: doc(TOPOLOGY_A3_ENTRY.replace('networkTopologyTypes:', 'networkTopolgyTypes:')),
    expect:
      /networkTopologyTypes is missing from the label source's config \(the config has \\?"networkTopolgyTypes\\?"; misspelled\?\)/,
    event: true,
  },
  {
    what: 'label config missing',
    conf: doc('  - source: label\n    enabled: true\n'),
    expect: /Cannot get networkTopologyTypes: networkTopologyTypes is missing from the label source's config/,
    event: true,
  },
  {
    what: 'every type rejected (its name is over 20 bytes)',
    conf: doc(TOPOLOGY_A3_ENTRY.replace('topologyA3:', 'averyveryverylongtypename:')),
    expect: /no usable topology type, every type is rejected: The length of topologyTypeName exceeds 20/,
    event: true,
  },
  {
    what: 'nodeLabel misspelled in every item',
    conf: doc(TOPOLOGY_A3_ENTRY.replaceAll('nodeLabel:', 'nodeLable:')),
    expect: /every type is rejected: networkTopologyTypes.topologyA3\[0\]: nodeLabel is missing or empty/,
    event: true,
  },
  {
    what: 'an unknown key in the label config (the source still runs)',
    conf: doc(TOPOLOGY_A3_ENTRY.replace('    config:\n', '    config:\n      tierOrder: bottom-up\n')),
    expect:
      /Ignoring unknown keys in the discovery configuration.* where=\\?"label config\\?" unknown=\[\\?"tierOrder\\?"\]/,
  },
  {
    what: 'a misspelled ufm key (warned, the source still starts)',
    conf: doc(
      TOPOLOGY_A3_ENTRY,
      ufm(`${GOOD_UFM_REF}    config: {endpoint: https://127.0.0.1:1, insecureSkipVerfy: true}\n`),
    ),
    expect:
      /Ignoring unknown keys in the discovery configuration.* where=\\?"ufm config\\?" unknown=\[\\?"insecureSkipVerfy\\?"\]/,
  },
];

test(`${VARIANTS.length} broken discovery ConfigMaps in turn: each reported with the source or field named, none deletes a HyperNode, good sources keep working`, async () => {
  const { api, controller } = await startWorkedExample();
  // Credentials exist (read live by the ufm source), so each ufm variant fails on its own field only.
  seedUfmSecret(api, 'https://127.0.0.1:1', 'admin', 'secret');
  await converge(() => workedExampleConverged(api), 'the six label HyperNodes of the worked example');
  const before = new Map(hyperNodes(api).map((hn) => [hn.metadata.name, hn.metadata.uid]));
  type Ev = { type: string; message: string; involvedObject: { kind: string; name: string } };
  const warnings = () =>
    (api.store.list('events', NS) as unknown as Ev[]).filter(
      (e) => e.type === 'Warning' && e.involvedObject.kind === 'ConfigMap',
    );

  for (const v of VARIANTS) {
    const mark = controller.log().length;
    setDiscoveryConfig(api, v.conf);
    await converge(() => v.expect.test(controller.log().slice(mark)), `${v.what}: a log line matching ${v.expect}`);
    const event = v.event === true ? v.expect : v.event;
    if (event)
      await converge(
        () => warnings().some((e) => event.test(e.message)),
        `${v.what}: a Warning Event on the ConfigMap matching ${event}`,
      );
    for (const [name, uid] of before)
      assert.is(api.store.get('hypernodes', name)?.metadata?.uid, uid, `${v.what}: ${name} still there`);
    assertNoDeletes(api);

    if (v.what === 'unknown source roce enabled') {
      // The label source keeps working while the roce entry is broken: a new rack appears under s5.
      api.store.create(node('node8', { [RACK]: 's6', [CLUSTER]: 's5' }));
      const rack = await converge(() => {
        const hn = groupOf(api, RACK, 's6');
        return nodeCount(hn) === 1 && hn;
      }, 'the HyperNode of the new rack s6');
      await converge(
        () => memberNames(groupOf(api, CLUSTER, 's5')).includes(rack.metadata.name) && true,
        'rack s6 under s5',
      );
    }
  }

  // Fixed again. The last variant left the label config as it is now, so the fix restarts nothing that runs a
  // label round by itself: wait for the applied configuration, then show the label source still acts on a change.
  const fixed = controller.log().length;
  setDiscoveryConfig(api, TOPOLOGY_A3_CONFIG);
  await converge(
    () => /Discovery configuration applied running=\[\\?"label\\?"\] failing=\[\]/.test(controller.log().slice(fixed)),
    'the fixed configuration applied with the label source running and nothing failing',
  );
  api.store.create(node('node9', { [RACK]: 's7', [CLUSTER]: 's5' }));
  await converge(() => nodeCount(groupOf(api, RACK, 's7')) === 1, 'the HyperNode of the new rack s7 after the fix');
  assert.is(hyperNodes(api).length, 8);
  for (const [name, uid] of before)
    assert.is(api.store.get('hypernodes', name)?.metadata?.uid, uid, `${name} survived every variant`);
  assertNoDeletes(api);
  assertNoForbidden(api);
});

test('disabling the label source or deleting the ConfigMap stops discovery and keeps every HyperNode; restoring it costs zero writes', async () => {
  const { api, controller } = await startWorkedExample();
  await converge(() => workedExampleConverged(api), 'the six label HyperNodes of the worked example');
  const uids = new Map(hyperNodes(api).map((hn) => [hn.metadata.name, hn.metadata.uid]));
  const stops = () => controller.log().match(/Stopped network topology discoverer source="label"/g)?.length ?? 0;
  const rounds = async () =>
    seriesValue(await controller.metrics(), 'hypernode_reconcile_duration_seconds_count', { source: 'label' });
  await converge(async () => (await rounds()) >= 1, 'the first label round to be reconciled');
  api.requests.clear();

  setDiscoveryConfig(api, TOPOLOGY_A3_CONFIG.replace('enabled: true', 'enabled: false'));
  await converge(() => stops() === 1, 'the label source stopped when disabled');
  setDiscoveryConfig(api, TOPOLOGY_A3_CONFIG);
  await converge(async () => (await rounds()) >= 2, 'a label round once enabled again');
  api.store.delete('configmaps', CONFIG_MAP, NS);
  await converge(() => stops() === 2, 'the label source stopped when the ConfigMap is deleted');
  seedConfigMap(api, TOPOLOGY_A3_CONFIG);
  await converge(async () => (await rounds()) >= 3, 'a label round once the ConfigMap is back');

  assert.equal(new Map(hyperNodes(api).map((hn) => [hn.metadata.name, hn.metadata.uid])), uids, 'every HyperNode kept');
  assert.equal(
    describeWrites(await answeredHyperNodeWrites(api)),
    [],
    'no HyperNode write while stopped or when restarted',
  );
  assertNoForbidden(api);
});

test.run();
