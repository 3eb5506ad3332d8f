// The ibnetdiscover entry's config: defaults, the one-fabric and list forms,
// the argument list checked for flags that print another format (the rest of
// the allowlist: ibnetdiscover-args.test.ts), and a clear error naming the key
// for each kind of bad input (a new source: unknown keys are errors).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DEFAULT_TIMEOUT_MS,
  parseIbnetdiscoverConfig,
} from '../../../../src/hypernode/discovery/ibnetdiscover/ibnetdiscover-config.ts';
import { DEFAULT_MIN_SHARED_HOSTS } from '../../../../src/hypernode/discovery/fabric/fabric-config.ts';
import type { DiscoveryEntry } from '../../../../src/hypernode/model/contracts.ts';

const entry = (config: Record<string, unknown>, extra: Partial<DiscoveryEntry> = {}): DiscoveryEntry => ({
  source: 'ibnetdiscover',
  enabled: true,
  intervalMs: 300_000,
  maxDeletePercent: 50,
  config,
  ...extra,
});
const parse = (config: Record<string, unknown>) => parseIbnetdiscoverConfig(entry(config));

test('defaults: one fabric "ib" running plain ibnetdiscover, every CA counting, 5m timeout, two shared hosts', () => {
  const c = parse({});
  assert.equal(c.fabrics, [{ name: 'ib', output: { kind: 'command', args: [] }, hcas: undefined }]);
  assert.is(c.timeoutMs, DEFAULT_TIMEOUT_MS);
  assert.is(c.minSharedHosts, DEFAULT_MIN_SHARED_HOSTS);
  assert.is(c.maxOutputBytes, 256 * 2 ** 20);
  assert.is(c.hostGuids.size, 0);
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.fabrics[0]));
});

test('a command picking the subnet (YAML numbers are arguments too), a file with maxAge, hcas per fabric over a default, hostGuids', () => {
  const c = parse({
    hcas: '^mlx5_[0-7]$',
    timeout: '90s',
    maxOutputMiB: 64,
    hostGuids: '# firmware descriptions\n0xE09D7303007A4BD8 node-a17\ne09d:7303:007a:4bd9 node-a18\n',
    fabrics: [
      { name: 'compute', command: ['ibnetdiscover', '-C', 'mlx5_0', '-P', 1] },
      { name: 'storage', file: '/var/run/ibnetdiscover/storage.txt', maxAge: '15m', hcas: '^mlx5_8$' },
    ],
  });
  assert.equal(c.fabrics[0]!.output, { kind: 'command', args: ['-C', 'mlx5_0', '-P', '1'] });
  assert.equal(c.fabrics[1]!.output, { kind: 'file', path: '/var/run/ibnetdiscover/storage.txt', maxAgeMs: 900_000 });
  assert.ok(c.fabrics[0]!.hcas!.matcher('mlx5_3').find() && !c.fabrics[0]!.hcas!.matcher('mlx5_8').find());
  assert.ok(c.fabrics[1]!.hcas!.matcher('mlx5_8').find() && !c.fabrics[1]!.hcas!.matcher('mlx5_3').find());
  assert.equal(
    [...c.hostGuids],
    [
      ['e09d7303007a4bd8', 'node-a17'],
      ['e09d7303007a4bd9', 'node-a18'],
    ],
  );
  assert.is(c.timeoutMs, 90_000);
  assert.is(c.maxOutputBytes, 64 * 2 ** 20);
});

test('a node-name-map: nodeNameMap names its file; hostGuids lines in its form are names, the others Nodes', () => {
  const c = parse({
    nodeNameMap: '/var/run/ibnetdiscover/ib-node-name-map',
    hostGuids: 'H-e09d7303007a4bd8 node-a17\n0xe09d7303007a4bd0 "node-a18 mlx5_0"\n',
  });
  assert.is(c.nodeNameMap, '/var/run/ibnetdiscover/ib-node-name-map');
  assert.equal([...c.hostGuids], [['e09d7303007a4bd8', 'node-a17']]);
  assert.equal([...c.nodeNames], [['e09d7303007a4bd0', 'node-a18 mlx5_0']]);
  assert.is(parse({}).nodeNameMap, undefined);
});

test('a command asking for another format is refused naming the flag, however it is written', () => {
  const cases: [unknown[], string][] = [
    [['ibnetdiscover', '-p'], 'config.command asks for the ports report (-p)'],
    [['ibnetdiscover', '-sg'], 'config.command asks for the grouping (-g)'],
    [['ibnetdiscover', '--list'], 'config.command asks for a node list (--list)'],
    [['ibnetdiscover', '-C', 'mlx5_0', '-H'], 'config.command asks for a node list (-H)'],
    [['ibnetdiscover', '--Switch_list'], 'config.command asks for a node list (--Switch_list)'],
    [['ibnetdiscover', '-R'], 'config.command asks for a node list (-R)'],
  ];
  for (const [command, message] of cases) {
    assert.throws(
      () => parse({ command }),
      (err: Error) =>
        err.message ===
        `ibnetdiscover source: ${message}; this source reads ibnetdiscover's default topology format: drop ${message.slice(message.lastIndexOf('(') + 1, -1)}`,
      JSON.stringify(command),
    );
  }
  // Values are not flags: an HCA named like one, a cluster that ends in a value.
  for (const command of [
    ['ibnetdiscover', '-C', 'mlx5_p'],
    ['ibnetdiscover', '-Cmlx5_l'],
    ['ibnetdiscover', '--node-name-map', '/var/run/ibnetdiscover/-p'],
    ['ibnetdiscover', '-s', '-f'],
  ]) {
    parse({ command });
  }
});

test('bad input names the key and what to write', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ comand: ['ibnetdiscover'] }, /^ibnetdiscover source: config has unknown keys "comand"; known: command, file/],
    [
      { command: 'ibnetdiscover -C mlx5_0' },
      /config.command must be a list of arguments, e.g. \[ibnetdiscover, -C, mlx5_0, -P, "1"\] \(it runs without a shell\), got "ibnetdiscover -C mlx5_0"/,
    ],
    [{ command: [] }, /config.command must be a list of arguments/],
    [{ command: ['ibnetdiscover', { C: 'mlx5_0' }] }, /argument 1 is a mapping of 1 key/],
    [
      { command: ['ibnetdiscover'], file: '/x' },
      /set either config.command \(run ibnetdiscover\) or config.file \(read its saved output\), not both/,
    ],
    [{ file: 'relative.txt' }, /config.file must be an absolute path, got "relative.txt"/],
    [{ maxAge: '5m' }, /config.maxAge is for config.file \(how old a saved output may be\)/],
    [{ file: '/x', maxAge: '5 minutes' }, /config.maxAge must be a duration like 90s or 5m, got "5 minutes"/],
    [{ timeout: 0 }, /config.timeout must be/],
    [{ hcas: '^mlx5_[' }, /config.hcas "\^mlx5_\[" is not a usable RE2 pattern/],
    [{ minSharedHosts: 0 }, /config.minSharedHosts must be a whole number of at least 1, got 0/],
    [{ maxOutputMiB: 1.5 }, /config.maxOutputMiB must be a whole number of at least 1, got 1.5/],
    [{ fabric: 'Compute' }, /^ibnetdiscover source: config.fabric must be a DNS label of at most 40 characters/],
    [
      { fabrics: [{ name: 'a' }], command: ['ibnetdiscover'] },
      /write either config.command \(one fabric\) or config.fabrics \(a list\), not both/,
    ],
    [{ fabrics: [] }, /config.fabrics must be a non-empty list of \{name, command or file\}/],
    [{ fabrics: [{ name: 'a' }, { name: 'a' }] }, /config.fabrics\[1\].name "a" is used twice/],
    [{ fabrics: [{ name: 'a', cmd: [] }] }, /config.fabrics\[0\] has unknown keys "cmd"/],
    [
      { fabrics: [{ name: 'a', command: ['ibnetdiscover', '-p'] }] },
      /config.fabrics\[0\].command asks for the ports report \(-p\)/,
    ],
    [
      { hostGuids: { '0xe09d7303007a4bd8': 'node-a17' } },
      /config.hostGuids must be a block of "GUID node" lines \(write it with \|\)/,
    ],
    [
      { hostGuids: 'e09d7303007a4bd8\n' },
      /config.hostGuids line 1 "e09d7303007a4bd8" is not "GUID node" \(e.g. "0xe09d7303007a4bd8 gpu-node-17"\)/,
    ],
    [
      { hostGuids: '0x1 a\n0x01 b\n' },
      /config.hostGuids line 2 maps 0x0000000000000001 to b, but an earlier line maps it to a/,
    ],
    [{ hostGuids: 'not-a-guid node-1\n' }, /line 1 "not-a-guid node-1" is not "GUID node"/],
    [
      { nodeNameMap: '/etc/rdma/ib-node-name-map' },
      /config.nodeNameMap "\/etc\/rdma\/ib-node-name-map" is outside the allowed directories; .*--allow-file-dir/,
    ],
    [{ nodeNameMap: 'ib-node-name-map' }, /config.nodeNameMap must be an absolute path, got "ib-node-name-map"/],
    [
      { nodeNameMap: ['/etc/rdma/ib-node-name-map'] },
      /config.nodeNameMap must be an absolute path, got a list of 1 item/,
    ],
  ];
  for (const [config, message] of cases) assert.throws(() => parse(config), message, JSON.stringify(config));
  assert.throws(
    () => parseIbnetdiscoverConfig(entry({}, { credentials: { secretRef: { name: 'x', namespace: 'y' } } })),
    /credentials are not used: ibnetdiscover reads the fabric through the host's HCA, with no Secret/,
  );
});

test.run();
