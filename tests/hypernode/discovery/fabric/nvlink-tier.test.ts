// The NVLink tier inside a fabric tree, on the fabric layer's output for a
// small rail-optimised fabric: domains between Nodes and their leaf group,
// the fabric's tiers one up under the same names, Nodes without a clique
// directly under their leaf group, a domain split over two units split per
// unit, partitions, another label, and the `config.nvlink` shapes with the
// errors an operator gets for the wrong ones.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fabricHyperNodes } from '../../../../src/hypernode/discovery/fabric/fabric-hypernodes.ts';
import type { FabricGraph } from '../../../../src/hypernode/discovery/fabric/fabric-graph.ts';
import { parseNvlinkConfig, type NvlinkConfig } from '../../../../src/hypernode/discovery/fabric/nvlink-config.ts';
import { nvlinkHyperNodeName, nvlinkTier } from '../../../../src/hypernode/discovery/fabric/nvlink-tier.ts';
import { NvlinkDomains } from '../../../../src/hypernode/discovery/fabric/nvlink-domains.ts';
import type { DiscoveredHyperNode, HyperNode, NodeMeta } from '../../../../src/hypernode/model/hypernode-types.ts';
import { validateSnapshot } from '../../../../src/hypernode/reconcile/snapshot-validation.ts';
import { nullLogger } from '../../../../src/log.ts';
import { capturingLogger } from '../../../support/capturing-logger.ts';
import { FakeInformer } from '../../../support/fake-informer.ts';
import { FakeClock } from '../../../kube/fake-clock.ts';
import { RecordingProblems } from '../../../support/recording-problems.ts';
import { hostLink, swLink } from './fabric-links.ts';

const CLIQUE = 'nvidia.com/gpu.clique';
const RACK_A = '7b968a6d-c8aa-45e1-9e07-e1e51be99c31';
const RACK_B = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9';
const SOURCE = { 'volcano.sh/network-topology-source': 'graph' };

/** Two units (leaves l<unit>1, l<unit>2) of three hosts u<unit>-<n>, under spines s1, s2. */
function twoUnits(): FabricGraph {
  const hosts = ['u1-1', 'u1-2', 'u1-3', 'u2-1', 'u2-2', 'u2-3'];
  const leaves = ['l11', 'l12', 'l21', 'l22'];
  return {
    switches: [...leaves, 's1', 's2'].map((id) => ({ id, name: id })),
    hosts: hosts.map((name) => ({ name })),
    links: [
      ...hosts.flatMap((h) => [1, 2].map((r) => hostLink(h, `l${h[1]}${r}`))),
      ...leaves.flatMap((l) => ['s1', 's2'].map((s) => swLink(l, s))),
    ],
  };
}

const base = () =>
  fabricHyperNodes({ graph: twoUnits(), fabric: 'lab', source: 'graph', mapHost: (h) => h, logger: nullLogger })
    .snapshot;
const config = (raw: unknown) => parseNvlinkConfig(raw) as NvlinkConfig;
const place = (labels: Record<string, Record<string, string>>, nvlink: unknown = 'domain') =>
  nvlinkTier({
    base: base(),
    fabric: 'lab',
    config: config(nvlink),
    labels: SOURCE,
    labelOf: (n) => labels[n]?.[config(nvlink).label],
  });
const shape = (s: readonly DiscoveredHyperNode[]) =>
  s
    .map(
      (h) =>
        `${h.metadata.name} ${h.spec.tier} ${h.spec.tierName}: ${h.spec.members.map((m) => `${m.type === 'Node' ? '' : '^'}${m.selector!.exactMatch!.name}`).join(',')}`,
    )
    .sort();
const domain = (value: string) => nvlinkHyperNodeName('lab', 'nvl-domain', value);

test('a rack per unit, one Node of unit 1 without a clique yet: Node → nvl-domain → leaf → spine, the unlabelled Node under its leaf, names kept', () => {
  const tier = place({
    'u1-1': { [CLIQUE]: `${RACK_A}.1` },
    'u1-2': { [CLIQUE]: `${RACK_A}.2` },
    'u2-1': { [CLIQUE]: `${RACK_B}.1` },
    'u2-2': { [CLIQUE]: `${RACK_B}.1` },
    'u2-3': { [CLIQUE]: `${RACK_B}.1` },
  });
  assert.equal(
    shape(tier.snapshot),
    [
      `${domain(RACK_B)} 1 nvl-domain: u2-1,u2-2,u2-3`,
      `${domain(RACK_A)} 1 nvl-domain: u1-1,u1-2`,
      `lab-leaf-l11 2 leaf: u1-3,^${domain(RACK_A)}`,
      `lab-leaf-l21 2 leaf: ^${domain(RACK_B)}`,
      'lab-spine-s1 3 spine: ^lab-leaf-l11,^lab-leaf-l21',
    ].sort(),
  );
  assert.equal([tier.domains, tier.splits, tier.unreadable], [2, [], []]);
  assert.equal(validateSnapshot([...tier.snapshot]), []);
  // Content-named, DNS-1123, well inside 63 characters, labelled with the domain for people and selectors.
  assert.match(domain(RACK_A), /^lab-nvl-domain-[0-9a-f]{12}$/);
  const a = tier.snapshot.find((h) => h.metadata.name === domain(RACK_A))!;
  assert.equal(a.metadata.labels, { ...SOURCE, [CLIQUE]: RACK_A });
  // The fabric's own HyperNodes keep their labels and annotations.
  assert.equal(
    tier.snapshot.find((h) => h.metadata.name === 'lab-leaf-l11')!.metadata,
    base().find((h) => h.metadata.name === 'lab-leaf-l11')!.metadata,
  );
});

test('no clique anywhere: only the tiers move up, nothing else changes; the base tree is not touched', () => {
  const before = JSON.stringify(base());
  const input = base();
  const tier = nvlinkTier({
    base: input,
    fabric: 'lab',
    config: config('domain'),
    labels: SOURCE,
    labelOf: () => undefined,
  });
  assert.equal(
    tier.snapshot.map((h) => [h.metadata.name, h.spec.tier, h.spec.members]),
    input.map((h) => [h.metadata.name, h.spec.tier + 1, h.spec.members]),
  );
  assert.is(JSON.stringify(input), before);
});

test('a domain with Nodes under two units is split per unit (each part under its own leaf group), named from domain and unit, and reported', () => {
  const tier = place({
    'u1-1': { [CLIQUE]: `${RACK_A}.1` },
    'u1-2': { [CLIQUE]: `${RACK_A}.1` },
    'u2-1': { [CLIQUE]: `${RACK_A}.1` },
  });
  const partA = nvlinkHyperNodeName('lab', 'nvl-domain', RACK_A, 'lab-leaf-l11');
  const partB = nvlinkHyperNodeName('lab', 'nvl-domain', RACK_A, 'lab-leaf-l21');
  assert.not.equal(partA, partB);
  assert.not.equal(partA, domain(RACK_A));
  assert.equal(
    shape(tier.snapshot),
    [
      `${partA} 1 nvl-domain: u1-1,u1-2`,
      `${partB} 1 nvl-domain: u2-1`,
      `lab-leaf-l11 2 leaf: u1-3,^${partA}`,
      `lab-leaf-l21 2 leaf: u2-2,u2-3,^${partB}`,
      'lab-spine-s1 3 spine: ^lab-leaf-l11,^lab-leaf-l21',
    ].sort(),
  );
  assert.equal(tier.splits, [
    {
      domain: RACK_A,
      parts: [
        { leafGroup: 'lab-leaf-l11', nodes: ['u1-1', 'u1-2'] },
        { leafGroup: 'lab-leaf-l21', nodes: ['u2-1'] },
      ],
    },
  ]);
  assert.equal(validateSnapshot([...tier.snapshot]), [], 'the tree stays a tree');
});

test('partition: the whole clique value, two partitions of one rack are two nvl-partition HyperNodes', () => {
  const tier = place(
    { 'u1-1': { [CLIQUE]: `${RACK_A}.1` }, 'u1-2': { [CLIQUE]: `${RACK_A}.2` }, 'u1-3': { [CLIQUE]: `${RACK_A}.2` } },
    'partition',
  );
  const part = (v: string) => nvlinkHyperNodeName('lab', 'nvl-partition', v);
  const [p1, p2] = [part(`${RACK_A}.1`), part(`${RACK_A}.2`)];
  const unit1 = shape(tier.snapshot).filter((line) => !line.includes('u2-') && !line.startsWith('lab-spine'));
  assert.equal(
    unit1,
    [
      `${p1} 1 nvl-partition: u1-1`,
      `${p2} 1 nvl-partition: u1-2,u1-3`,
      `lab-leaf-l11 2 leaf: ${[p1, p2]
        .sort()
        .map((p) => `^${p}`)
        .join(',')}`,
    ].sort(),
  );
  assert.equal(tier.snapshot.find((h) => h.metadata.name === part(`${RACK_A}.2`))!.metadata.labels, {
    ...SOURCE,
    [CLIQUE]: `${RACK_A}.2`,
  });
});

test("another label: Topograph's accelerator domain gives the ClusterUUID of a clique value and any other value whole", () => {
  const key = 'accelerator.topograph.run/domain';
  const tier = place(
    {
      'u1-1': { [key]: `${RACK_A}.3` },
      'u1-2': { [key]: `${RACK_A}.4` },
      'u2-1': { [key]: 'cb-0042' },
      'u2-2': { [CLIQUE]: `${RACK_B}.1` },
    },
    { level: 'domain', label: key },
  );
  const names = tier.snapshot
    .filter((h) => h.spec.tierName === 'nvl-domain')
    .map((h) => [h.metadata.labels?.[key], h.spec.members.map((m) => m.selector!.exactMatch!.name)]);
  assert.equal(names.sort(), [
    [RACK_A, ['u1-1', 'u1-2']],
    ['cb-0042', ['u2-1']],
  ]);
});

test('a clique value without its CliqueID gives no domain: the Node stays under its leaf group and is listed', () => {
  const tier = place({ 'u1-1': { [CLIQUE]: RACK_A }, 'u1-2': { [CLIQUE]: `${RACK_A}.1` } });
  assert.equal(tier.unreadable, [{ node: 'u1-1', value: RACK_A }]);
  assert.ok(shape(tier.snapshot).includes(`lab-leaf-l11 2 leaf: u1-1,u1-3,^${domain(RACK_A)}`));
});

test('names depend only on fabric, level and value: the same domain has the same name whatever else changes', () => {
  const one = place({ 'u1-1': { [CLIQUE]: `${RACK_A}.1` } });
  const more = place({
    'u1-1': { [CLIQUE]: `${RACK_A}.1` },
    'u1-2': { [CLIQUE]: `${RACK_A}.7` },
    'u2-1': { [CLIQUE]: `${RACK_B}.1` },
  });
  assert.ok(more.snapshot.some((h) => h.metadata.name === one.snapshot[0]!.metadata.name));
  // A 40-character fabric name and a partition stay a valid name.
  const long = nvlinkHyperNodeName('a'.repeat(40), 'nvl-partition', `${RACK_A}.1`);
  assert.is(long.length, 40 + '-nvl-partition-'.length + 12);
  assert.equal(validateSnapshot([{ metadata: { name: long }, spec: { tier: 1, members: [] } }]), []);
});

test('the source reports a split domain once per distinct list (an NvlinkDomainSplit Warning), and a value giving no domain in one log line', () => {
  const { logger, lines } = capturingLogger({ verbosity: 3 });
  const problems = new RecordingProblems(logger);
  const cliques: Record<string, string> = { 'u1-1': `${RACK_A}.1`, 'u2-1': `${RACK_A}.1`, 'u2-2': RACK_B };
  const nodes = new FakeInformer<NodeMeta>({
    initial: Object.entries(cliques).map(([name, v]) => ({ metadata: { name, labels: { [CLIQUE]: v } } })),
  });
  const deps = {
    nodes,
    hyperNodes: new FakeInformer<HyperNode>(),
    problems,
    logger,
    clock: new FakeClock(),
    source: 'graph',
    onExpiry: () => {},
  };
  const domains = new NvlinkDomains(config('domain'), deps);
  for (let i = 0; i < 3; i++) domains.place('lab', base(), SOURCE);
  assert.equal(problems.warnings, [
    `NvlinkDomainSplit: fabric lab: 1 NVLink domain(s) have Nodes under several leaf groups (miscabled, or a rack split over units); each part is its own nvl-domain HyperNode under its leaf group: ${RACK_A} (under lab-leaf-l11: u1-1; under lab-leaf-l21: u2-1)`,
  ]);
  assert.equal(
    lines.filter((l) => l.includes('Nodes whose NVLink label gives no domain stay directly under their leaf group'))
      .length,
    1,
  );
  assert.match(lines.join('\n'), `nodes="u2-2 (${CLIQUE}=${RACK_B})"`);
  assert.match(lines[0]!, 'Placed the NVLink tier fabric="lab" tierName="nvl-domain" domains=2 split=1');
  // Mended, then split again: reported again.
  nodes.apply({ metadata: { name: 'u2-1', labels: {} } });
  domains.place('lab', base(), SOURCE);
  nodes.apply({ metadata: { name: 'u2-1', labels: { [CLIQUE]: `${RACK_A}.1` } } });
  domains.place('lab', base(), SOURCE);
  assert.is(problems.warnings.length, 2);
  // Without config.nvlink the tree passes unchanged.
  const tree = base();
  assert.is(new NvlinkDomains(undefined, deps).place('lab', tree, SOURCE), tree);
});

test('config.nvlink: the two levels, a mapping with another label, and errors that say what to write', () => {
  assert.equal(parseNvlinkConfig(undefined), undefined);
  assert.equal(parseNvlinkConfig('domain'), {
    level: 'domain',
    label: CLIQUE,
    take: 'cluster-uuid',
    tierName: 'nvl-domain',
  });
  assert.equal(parseNvlinkConfig('partition'), {
    level: 'partition',
    label: CLIQUE,
    take: 'whole',
    tierName: 'nvl-partition',
  });
  assert.equal(parseNvlinkConfig({ level: 'domain', label: 'accelerator.topograph.run/domain' }), {
    level: 'domain',
    label: 'accelerator.topograph.run/domain',
    take: 'cluster-uuid-or-whole',
    tierName: 'nvl-domain',
  });
  assert.equal(parseNvlinkConfig({ level: 'partition' })?.label, CLIQUE);
  const refused: [unknown, string][] = [
    [
      'rack',
      'config.nvlink must be domain or partition (domain: the NVLink domain, e.g. one NVL72 rack; partition: the fabric manager\'s partition), got "rack"',
    ],
    [
      true,
      'config.nvlink must be domain or partition, or {level: domain|partition, label: <Node label key>}, got true',
    ],
    [{ label: CLIQUE }, 'config.nvlink.level is required: domain or partition'],
    [{ level: 'domain', lable: CLIQUE }, 'config.nvlink has unknown keys "lable"; known: level, label'],
    [
      { level: 'domain', label: 'not a key!' },
      'config.nvlink.label must be a Node label key such as nvidia.com/gpu.clique or accelerator.topograph.run/domain, got "not a key!"',
    ],
  ];
  for (const [raw, message] of refused)
    assert.throws(
      () => parseNvlinkConfig(raw),
      (err: Error) => err.message === message,
      JSON.stringify(raw),
    );
});

test.run();
