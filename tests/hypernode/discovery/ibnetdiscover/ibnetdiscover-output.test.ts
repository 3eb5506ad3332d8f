// The parser of ibnetdiscover's default format, on outputs the real
// ibnetdiscover printed (captured/, see its README) and on the lines of the
// format it prints for routers and odd descriptions: every block kind, port
// lines with and without the peer's port GUID, parallel cables, the other
// formats refused by flag, and outputs cut short or broken refused with the
// line named, never read as a smaller fabric; and all of it the same when the
// output arrives in chunks split anywhere, as a pipe or a file delivers it.
// And what sites hold beside a fresh run (tests/cmd/ibnetdiscover-capture):
// ibdiagnet's copy of the fabric with its header and port labels, and a
// capture with the diagnostics of infiniband-diags in it.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IbSubnet } from '../../../../src/hypernode/discovery/ibnetdiscover/ib-subnet.ts';
import {
  IbnetdiscoverReader,
  parseIbnetdiscoverOutput,
} from '../../../../src/hypernode/discovery/ibnetdiscover/ibnetdiscover-output.ts';

const captured = (name: string) => readFileSync(join(import.meta.dirname, 'captured', `${name}.txt`), 'utf8');
const DEFAULT = captured('default');
const siteFile = (name: string) =>
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'cmd', 'ibnetdiscover-capture', name), 'utf8');
const IBDIAGNET = siteFile('ibdiagnet2.ibnetdiscover');

/** Links as `description:port – description:port`, sorted, so a test reads as the cabling. */
function cabling(subnet: IbSubnet): string[] {
  const { links } = subnet;
  return Array.from({ length: links.count }, (_, c) =>
    [`${subnet.description(links.a[c]!)}:${links.aPort[c]}`, `${subnet.description(links.b[c]!)}:${links.bPort[c]}`]
      .sort()
      .join(' – '),
  ).sort();
}

/** Each node as [kind, GUID, description], in the order printed. */
const listed = (subnet: IbSubnet) =>
  Array.from({ length: subnet.nodeCount }, (_, n) => [subnet.kind(n), subnet.guid(n), subnet.description(n)]);
/** The port GUIDs of the node with `guid`. */
const portGuidsOf = (subnet: IbSubnet, guid: string) =>
  subnet.portGuids(listed(subnet).findIndex(([, g]) => g === guid));

const refused = (text: string, message: RegExp) => assert.throws(() => parseIbnetdiscoverOutput(text), message);

test('the real default output: every switch and CA with its description, every cable once, parallel uplinks apart', () => {
  const subnet = parseIbnetdiscoverOutput(DEFAULT);
  assert.equal(
    listed(subnet)
      .map((n) => n.join(' '))
      .sort(),
    [
      'ca 0000000000100000 ufm-01 mlx5_0',
      'ca 0000000000100002 gpu01 HCA-1',
      'ca 0000000000100004 gpu01 HCA-2',
      'ca 0000000000100006 gpu02 HCA-1',
      'ca 0000000000100008 gpu02 HCA-2',
      'switch 0000000000200000 MF0;SPINE-1:MQM9700/U1',
      'switch 0000000000200001 MF0;LEAF-SU1-R1:MQM9700/U1',
      'switch 0000000000200002 MF0;LEAF-SU1-R2:MQM9700/U1',
    ],
  );
  assert.equal(cabling(subnet), [
    'MF0;LEAF-SU1-R1:MQM9700/U1:1 – MF0;SPINE-1:MQM9700/U1:1',
    'MF0;LEAF-SU1-R1:MQM9700/U1:2 – MF0;SPINE-1:MQM9700/U1:2',
    'MF0;LEAF-SU1-R1:MQM9700/U1:3 – gpu01 HCA-1:1',
    'MF0;LEAF-SU1-R1:MQM9700/U1:4 – gpu02 HCA-1:1',
    'MF0;LEAF-SU1-R1:MQM9700/U1:5 – ufm-01 mlx5_0:1',
    'MF0;LEAF-SU1-R2:MQM9700/U1:1 – MF0;SPINE-1:MQM9700/U1:3',
    'MF0;LEAF-SU1-R2:MQM9700/U1:2 – MF0;SPINE-1:MQM9700/U1:4',
    'MF0;LEAF-SU1-R2:MQM9700/U1:3 – gpu01 HCA-2:1',
    'MF0;LEAF-SU1-R2:MQM9700/U1:4 – gpu02 HCA-2:1',
  ]);
  // A CA's own port GUID, from the parentheses of its port line.
  assert.equal(portGuidsOf(subnet, '0000000000100002'), ['0000000000100003']);
});

test('-f (port details) and -s (DR path lines first) are the default format too', () => {
  const plain = cabling(parseIbnetdiscoverOutput(DEFAULT));
  assert.match(captured('full'), / s=1 w=2 v=4$/m);
  assert.equal(cabling(parseIbnetdiscoverOutput(captured('full'))), plain);
  assert.match(captured('show'), /^DR path /m);
  assert.equal(cabling(parseIbnetdiscoverOutput(captured('show'))), plain);
});

test('a Buffer, CRLF line ends and upper-case GUIDs read the same', () => {
  const plain = cabling(parseIbnetdiscoverOutput(DEFAULT));
  assert.equal(cabling(parseIbnetdiscoverOutput(Buffer.from(DEFAULT.replaceAll('\n', '\r\n')))), plain);
  assert.equal(
    cabling(
      parseIbnetdiscoverOutput(
        DEFAULT.replace(/"([SH])-([0-9a-f]{16})"/g, (_all, k: string, g: string) => `"${k}-${g.toUpperCase()}"`),
      ),
    ),
    plain,
  );
});

/** A router between a switch and a CA, and descriptions holding quotes and `#`, as out_ca and out_switch print them. */
const ROUTER_AND_ODD_DESCRIPTIONS = `#
# Topology file: generated on Thu Jan  1 00:00:00 2026
#
# Initiated from node e09d7303007a4bd8 port e09d7303007a4bd9

vendid=0x2c9
devid=0xd2f0
sysimgguid=0x2c5eab0300b87b40
switchguid=0x2c5eab0300b87b40(2c5eab0300b87b40)
Switch\t65 "S-2c5eab0300b87b40"\t\t# "MF0;LEAF-07:MQM9701/U1" enhanced port 0 lid 73 lmc 0
[1]\t"H-e09d7303007a4bd8"[1](e09d7303007a4bd9) \t\t# "node "a01" #7 mlx5_5" lid 647 4xNDR
[2]\t"R-0002c90300001234"[1](2c90300001235) \t\t# "gw-01" lid 12 4xHDR
[65]\t"H-2c5eab0300b87b48"[1](2c5eab0300b87b48) \t\t# "Mellanox Technologies Aggregation Node" lid 90 4xNDR

vendid=0x2c9
devid=0xa2dc
sysimgguid=0x2c5eab0300b87b48
caguid=0x2c5eab0300b87b48
Ca\t1 "H-2c5eab0300b87b48"\t\t# "Mellanox Technologies Aggregation Node"
[1](2c5eab0300b87b48) \t"S-2c5eab0300b87b40"[65]\t\t# lid 90 lmc 0 "MF0;LEAF-07:MQM9701/U1" lid 73 4xNDR

vendid=0x2c9
devid=0x1021
sysimgguid=0x2c90300001234
rtguid=0x2c90300001234
Rt\t2 "R-0002c90300001234"\t\t# "gw-01"
[1](2c90300001235) \t"S-2c5eab0300b87b40"[2]\t\t# lid 12 lmc 0 "MF0;LEAF-07:MQM9701/U1" lid 73 4xHDR

vendid=0x2c9
devid=0x1021
sysimgguid=0xe09d7303007a4bd8
caguid=0xe09d7303007a4bd8
Ca\t1 "H-e09d7303007a4bd8"\t\t# "node "a01" #7 mlx5_5"
[1](e09d7303007a4bd9) \t"S-2c5eab0300b87b40"[1]\t\t# lid 647 lmc 0 "MF0;LEAF-07:MQM9701/U1" lid 73 4xNDR
`;

test('Switch, Ca and Rt blocks; a description keeps its quotes and #; short GUIDs are widened to 16 digits', () => {
  const subnet = parseIbnetdiscoverOutput(ROUTER_AND_ODD_DESCRIPTIONS);
  assert.equal(listed(subnet), [
    ['switch', '2c5eab0300b87b40', 'MF0;LEAF-07:MQM9701/U1'],
    ['ca', '2c5eab0300b87b48', 'Mellanox Technologies Aggregation Node'],
    ['router', '0002c90300001234', 'gw-01'],
    ['ca', 'e09d7303007a4bd8', 'node "a01" #7 mlx5_5'],
  ]);
  assert.equal(cabling(subnet), [
    'MF0;LEAF-07:MQM9701/U1:1 – node "a01" #7 mlx5_5:1',
    'MF0;LEAF-07:MQM9701/U1:2 – gw-01:1',
    'MF0;LEAF-07:MQM9701/U1:65 – Mellanox Technologies Aggregation Node:1',
  ]);
  assert.equal(portGuidsOf(subnet, '0002c90300001234'), ['0002c90300001235']);
});

test("a name a peer's port line prints wins over a CA's own header, as `ibnetdiscover --node-name-map` prints the map's names", () => {
  // ibnetdiscover maps names in switch headers and on port lines, but a CA's header keeps its node description.
  const mapped = DEFAULT.replace('# "gpu01 HCA-1" lid 0', '# "gpu01 mlx5_0" lid 0');
  assert.ok(mapped !== DEFAULT && mapped.includes('Ca\t1 "H-0000000000100002"\t\t# "gpu01 HCA-1"'));
  const subnet = parseIbnetdiscoverOutput(mapped);
  assert.equal(
    listed(subnet).find(([, guid]) => guid === '0000000000100002'),
    ['ca', '0000000000100002', 'gpu01 mlx5_0'],
  );
});

test('the other formats are refused naming the flag that prints them', () => {
  refused(
    captured('ports'),
    /the ports report of `ibnetdiscover -p`, not its default topology format: run ibnetdiscover without that flag/,
  );
  refused(captured('grouping'), /the grouping of `ibnetdiscover -g`/);
  refused(captured('list'), /a node list of `ibnetdiscover -l`/);
  refused(captured('hca-list'), /a node list of `ibnetdiscover -H \(or -l\)`/);
  refused(captured('switch-list'), /a node list of `ibnetdiscover -S \(or -l\)`/);
  refused('Router\t : 0x0002c90300001234 ports 2 devid 0x1021 vendid 0x2c9 "gw-01"\n', /`ibnetdiscover -R \(or -l\)`/);
});

test('an empty output, or one without a node, is refused with what to check', () => {
  refused('', /the output is empty \(ibnetdiscover printed nothing; a file argument makes it write the topology there/);
  refused('\n\n  \n', /the output is empty/);
  refused(
    '#\n# Topology file: generated on Thu Jan  1 00:00:00 2026\n#\n',
    /the output holds no node block \(no Switch, Ca or Rt line\)/,
  );
});

test('an output cut short is refused: mid-line, mid-block, or before a peer block', () => {
  const lines = DEFAULT.split('\n');
  refused(
    DEFAULT.slice(0, DEFAULT.indexOf('(100003) ') + 4),
    /the output ends in the middle of line 33: it is cut short/,
  );
  // The last block loses its port line: its switch still prints the cable.
  const lastPort = lines.findLastIndex((l) => l.startsWith('['));
  refused(
    lines.slice(0, lastPort).join('\n'),
    /the output is cut short or edited: 1 port\(s\) are printed by one end only \(line \d+: port \d+ of 0000000000200001 leads to port 1 of 0000000000100000, whose block does not lead back\)/,
  );
  // Whole blocks missing: peers named on switch ports have no block.
  const firstCa = lines.indexOf('caguid=0x100008') - 4;
  refused(
    lines.slice(0, firstCa).join('\n'),
    /5 port\(s\) are printed by one end only \(line \d+: port 3 of 0000000000200002 leads to CA 0000000000100004 \("gpu01 HCA-2"\), which has no block; .* and 2 more\)/,
  );
});

test('garbage is refused naming the line: a stray line, a port before any block, a node twice, a port twice, a wrong letter', () => {
  const lines = DEFAULT.split('\n');
  refused(
    `${DEFAULT}hello world\n`,
    /line 71 is neither a node header, a port line nor a block line of the default format/,
  );
  refused(
    `[1]\t"S-0000000000200000"[1]\t\t# "x" lid 0 4xSDR\n${DEFAULT}`,
    /line 1 is a port line outside a node block/,
  );
  const block = DEFAULT.split('\n\n')[1]!;
  refused(`${DEFAULT}\n${block}\n`, /prints node 0000000000200002 a second time/);
  const port1 = lines.find((l) => l.startsWith('[1]\t'))!;
  refused(
    DEFAULT.replace(port1, `${port1}\n${port1}`),
    /line 12 prints port 1 of switch 0000000000200002 a second time/,
  );
  refused(
    DEFAULT.replace('Switch\t64 "S-0000000000200002"', 'Switch\t64 "H-0000000000200002"'),
    /names a Switch "H-…"; the letter does not match/,
  );
  refused(
    DEFAULT.replace('[3]\t"H-0000000000100004"', '[3]\t"S-0000000000100004"'),
    /names 0000000000100004 a switch, but its block is a CA's/,
  );
  refused(
    DEFAULT.replace('[3]\t"H-0000000000100004"[1](100005)', '[3]\t"H-0000000000100004"[1](1000zz)'),
    /line 13 is not a port line of switch 0000000000200002/,
  );
});

test('a node header is read whole: its word, port count, letter, a GUID of at most 16 digits and a quoted description', () => {
  const header = 'Switch\t64 "S-0000000000200002"\t\t# "MF0;LEAF-SU1-R2:MQM9700/U1" base port 0 lid 0 lmc 0';
  assert.ok(DEFAULT.includes(header));
  for (const broken of [
    'Switches\t64 "S-0000000000200002"\t\t# "MF0;LEAF-SU1-R2:MQM9700/U1"',
    'Switch\t"S-0000000000200002"\t\t# "MF0;LEAF-SU1-R2:MQM9700/U1"',
    'Switch\t64 "X-0000000000200002"\t\t# "MF0;LEAF-SU1-R2:MQM9700/U1"',
    'Switch\t64 "S-00000000002000020"\t\t# "MF0;LEAF-SU1-R2:MQM9700/U1"',
    'Switch\t64 "S-0000000000200002"\t\t"MF0;LEAF-SU1-R2:MQM9700/U1"',
    'Switch\t64 "S-0000000000200002"\t\t# "MF0;LEAF-SU1-R2:MQM9700/U1',
  ]) {
    refused(
      DEFAULT.replace(header, broken),
      /^line 10 is neither a node header, a port line nor a block line of the default format$/,
    );
  }
  // Blanks of any width, a GUID without its leading zeros and an empty description are read as printed.
  const loose = parseIbnetdiscoverOutput(
    DEFAULT.replace(header, 'Switch  64  "S-200002"  #  ""').replaceAll('"S-0000000000200002"', '"S-200002"'),
  );
  assert.equal(listed(loose)[0], ['switch', '0000000000200002', '']);
  assert.equal(cabling(loose).length, cabling(parseIbnetdiscoverOutput(DEFAULT)).length);
});

/**
 * What the reader makes of `bytes` fed in chunks ending at `ends`: the subnet as lines a test compares, or the refusal.
 */
function readChunked(bytes: Buffer, ends: readonly number[]): string[] | string {
  const reader = new IbnetdiscoverReader();
  let from = 0;
  for (const to of [...ends, bytes.length]) {
    reader.write(bytes.subarray(from, to));
    from = to;
  }
  try {
    const subnet = reader.end();
    return [
      ...listed(subnet).map((node, n) => `${node.join(' ')} ${subnet.portGuids(n).join(',')}`),
      ...cabling(subnet),
    ];
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  }
}

/**
 * Asserts that `text` reads the same (or is refused with the same message) split in two at every byte, and one byte at
 * a time.
 */
function sameInChunks(text: string): void {
  const bytes = Buffer.from(text);
  const whole = readChunked(bytes, []);
  for (let at = 0; at <= bytes.length; at++) assert.equal(readChunked(bytes, [at]), whole, `split at byte ${at}`);
  assert.equal(
    readChunked(
      bytes,
      Array.from({ length: bytes.length }, (_, i) => i),
    ),
    whole,
    'one byte at a time',
  );
}

/** ibdiagnet's text as ibnetdiscover prints it: no header, no port labels, tabs. */
const withoutLabels = (text: string) =>
  text
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .map((l) => l.replace(/^\[(\d+)\]\([\d/]+\)/, '[$1]').replace(/ {2,}(?=["#])/g, '\t'))
    .join('\n');

/** ibdiagnet's header line. */
const IBDIAG_HEADER = '# This database file was automatically generated by IBDIAG\n';
/**
 * Blocks as ibdiagnet writes them for an older Quantum switch (`[3](3)`, split `[4](3/2)`) and two CAs, the first CA's
 * port line given.
 */
const labelledBlocks = (ca: string) =>
  `vendid=0x2c9
devid=0xd2f0
sysimgguid=0x2c5eab0300b87b40
switchguid=0x2c5eab0300b87b40(2c5eab0300b87b40)
Switch  41 "S-2c5eab0300b87b40"      # "MF0;LEAF-07:MQM8700/U1" enhanced port 0 lid 73 lmc 0
[3](3)             "H-e09d7303007a4bd8"[1](e09d7303007a4bd8)    # "node-a01 mlx5_5" lid 647 4xHDR
[4](3/2)           "H-e09d7303007a4bd0"[1](1)(e09d7303007a4bd0) # "node-a02 mlx5_5" lid 648 2xHDR

vendid=0x2c9
devid=0x101b
sysimgguid=0xe09d7303007a4bd8
caguid=0xe09d7303007a4bd8
Ca      1 "H-e09d7303007a4bd8"        # "node-a01 mlx5_5"
${ca}    "S-2c5eab0300b87b40"[3](3)    # lid 647 lmc 0 "MF0;LEAF-07:MQM8700/U1" lid 73 4xHDR

vendid=0x2c9
devid=0x101b
sysimgguid=0xe09d7303007a4bd0
caguid=0xe09d7303007a4bd0
Ca      1 "H-e09d7303007a4bd0"        # "node-a02 mlx5_5"
[1](1)(e09d7303007a4bd0)    "S-2c5eab0300b87b40"[4](3/2)    # lid 648 lmc 0 "MF0;LEAF-07:MQM8700/U1" lid 73 2xHDR
`;

test("ibdiagnet's copy of the fabric reads as ibnetdiscover's output: labels after port numbers, a CA's label before its GUID", () => {
  const subnet = parseIbnetdiscoverOutput(IBDIAGNET);
  assert.match(IBDIAGNET, /^# This database file was automatically generated by IBDIAG$/m);
  // Quantum-2 labels, unsplit and split, and a CA's port number again before its GUID.
  for (const line of ['[33](1/17/1) ', '[2](1/1/1/2) ', '[65](1/17/1/1) ', '[1](1)(5c25730300e6716e) '])
    assert.ok(IBDIAGNET.includes(line), line);
  assert.is(subnet.nodeCount, 2 + 4 + 17);
  assert.is(subnet.links.count, 4 * 2 * 2 + 17);
  assert.equal(cabling(subnet), cabling(parseIbnetdiscoverOutput(withoutLabels(IBDIAGNET))));
  // The GUID in a CA's second parenthesis is its port's; a label is never taken for a GUID.
  assert.equal(portGuidsOf(subnet, '5c25730300e6716e'), ['5c25730300e6716e']);
  assert.equal(portGuidsOf(subnet, 'b83fd203002f2a00'), []);
});

test("port labels in every form ibdiagnet writes; a lone number is a label on a switch or in ibdiagnet's file, a GUID on a CA elsewhere", () => {
  // Older Quantum: `[3](3)` and, split, `[4](3/2)`; peers printed with their labels too.
  const ibdiag = parseIbnetdiscoverOutput(IBDIAG_HEADER + labelledBlocks('[1](1)'));
  assert.is(ibdiag.links.count, 2);
  assert.equal(portGuidsOf(ibdiag, 'e09d7303007a4bd8'), []);
  assert.equal(portGuidsOf(ibdiag, 'e09d7303007a4bd0'), ['e09d7303007a4bd0']);
  // Without ibdiagnet's header, a CA's lone parenthesis is ibnetdiscover's port GUID.
  const plain = parseIbnetdiscoverOutput(labelledBlocks('[1](e09d7303007a4bd8)'));
  assert.equal(portGuidsOf(plain, 'e09d7303007a4bd8'), ['e09d7303007a4bd8']);
  // A label is digits and slashes, a GUID at most 16 hex digits; two parentheses are a label and a GUID, in that order.
  for (const broken of ['[1](1-1)', '[1](e09d7303007a4bd8)(1)', '[1](1)(1/2)', '[1]()', '[1](1)(e09d7303007a4bd8a)']) {
    refused(
      IBDIAG_HEADER + labelledBlocks(broken),
      /^line 15 is not a port line of CA e09d7303007a4bd8 \(in ibdiagnet's ibdiagnet2\.ibnetdiscover\)$/,
    );
  }
});

test('another file ibdiagnet writes is refused naming the one to read; a broken line of its copy names ibdiagnet', () => {
  const netDump = `# This database file was automatically generated by IBDIAG
# Running version   : "IBDIAGNET 2.13.0.MLNX20240128.d1f5b96"

"MF0;IB-SPINE-1:MQM9700/U1", Mellanox, 0xfc6a1c0300e6a440, LID 1
  #          : IB# : Sta  : PhysSta    : MTU : LWA     : LSA     : FEC mode
  1/1/1      : 1   : ACT  : LINK UP    : 5   : 4x      : 100     : MLNX_RS_544_514_PLR
`;
  refused(
    netDump,
    /^this is a file ibdiagnet wrote, but not its copy of the fabric: read ibdiagnet2\.ibnetdiscover, from the same directory$/,
  );
  refused(
    IBDIAGNET.replace('[33](1/17/1)', '[33](1/17/1'),
    /^line 53 is not a port line of switch b83fd203002f1a00 \(in ibdiagnet's ibdiagnet2\.ibnetdiscover\)$/,
  );
});

/** The forms of diagnostics infiniband-diags print on stderr, as the field sends them. */
const DIAGNOSTICS = [
  'ibwarn: [12345] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,3)',
  'src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1,1,31 Attr 0x11:0) bad status 110; Connection timed out',
  '../libibnetdisc/chassis.c:1074; Unexpected node found: guid 0x0002c90300001234',
  'ibnetdiscover: iberror: failed: discover failed',
  "ibpanic: [812] main: can't open UMAD port (mlx5_0:1): No such device",
  'ibdebug: [812] smp_query_via: attr 0x11 mod 0x0 route DR path 0,1',
  '[812] _do_madrpc: recv failed: Connection timed out',
];
/** The lines of `text` that are no diagnostics (what ibnetdiscover wrote to stdout). */
const stdoutOf = (text: string) =>
  text
    .split('\n')
    .filter((l) => !/^(ibwarn: |\.\/libibnetdisc\/query_smp\.c:)/.test(l))
    .join('\n');

test('a capture with stderr in it (2>&1) reads as its stdout alone; the diagnostics are counted and the first kept, cut short', () => {
  const capture = siteFile('compute-stderr.txt');
  const reader = new IbnetdiscoverReader();
  reader.write(Buffer.from(capture));
  const subnet = reader.end();
  assert.equal(cabling(subnet), cabling(parseIbnetdiscoverOutput(stdoutOf(capture))));
  assert.is(reader.stderrLines.count, 5);
  assert.is(reader.stderrLines.first(), 'line 1: "ibwarn: [6984] sim_connect: attached as …" (72 bytes)');
  // The HCAs ibsim dropped every packet to are missing, as on a fabric where they do not answer.
  assert.not.ok(capture.includes('"gpu003 mlx5_8"'));
});

test('every diagnostic form infiniband-diags print is skipped at the top, between blocks and inside one; any other line still refuses', () => {
  const lines = DEFAULT.split('\n');
  const between = lines.indexOf('vendid=0x0', 10);
  const inside = lines.findIndex((l) => l.startsWith('[2]\t'));
  const plain = cabling(parseIbnetdiscoverOutput(DEFAULT));
  for (const diagnostic of DIAGNOSTICS) {
    for (const at of [0, between, inside]) {
      const text = [...lines.slice(0, at), diagnostic, ...lines.slice(at)].join('\n');
      const reader = new IbnetdiscoverReader();
      reader.write(Buffer.from(text));
      assert.equal(cabling(reader.end()), plain, `${diagnostic} at line ${at + 1}`);
      assert.is(reader.stderrLines.count, 1);
      assert.is(reader.stderrLines.first().slice(0, `line ${at + 1}: `.length), `line ${at + 1}: `);
    }
  }
  for (const stray of [
    'Warning: port 3 is down',
    'ibwarn [1] no colon',
    '[812]_do_madrpc: recv failed',
    'query_smp.c 195: x',
  ])
    refused(
      [...lines.slice(0, between), stray, ...lines.slice(between)].join('\n'),
      /^line \d+ is (neither|a port line|not a port)/,
    );
});

test('an output of diagnostics only says ibnetdiscover failed where it ran, quoting the first one cut short', () => {
  refused(
    `${DIAGNOSTICS[0]}\nibnetdiscover: iberror: failed: discover failed\n`,
    /^the output holds no node block, only 2 diagnostic line\(s\) of infiniband-diags \(the first, line 1: "ibwarn: \[12345\] mad_rpc: _do_madrpc fail…" \(\d+ bytes\)\): ibnetdiscover failed where it ran$/,
  );
});

test('split anywhere, even inside a UTF-8 character or a CRLF, an output reads as it does whole', () => {
  const lines = DEFAULT.split('\n');
  for (const text of [
    DEFAULT,
    DEFAULT.replaceAll('\n', '\r\n'),
    captured('full'),
    captured('show'),
    ROUTER_AND_ODD_DESCRIPTIONS.replaceAll('LEAF-07', 'LEAF-07-é€'),
    IBDIAG_HEADER + labelledBlocks('[1](1)'),
    `${DIAGNOSTICS[0]}\n${DEFAULT.replace('\n\nvendid', `\n${DIAGNOSTICS[1]}\n\nvendid`)}`,
    // Without a newline after the last line.
    DEFAULT.trimEnd(),
    lines
      .slice(
        0,
        lines.findLastIndex((l) => l.startsWith('[')),
      )
      .join('\n'),
  ]) {
    sameInChunks(text);
  }
  assert.match(readChunked(Buffer.from(DEFAULT), [1000]).toString(), /MF0;LEAF-SU1-R1/);
});

test('split anywhere, a cut, broken or other-format output is refused naming the same line, ports or flag', () => {
  const lines = DEFAULT.split('\n');
  const port1 = lines.find((l) => l.startsWith('[1]\t'))!;
  const refusals = [
    DEFAULT.slice(0, DEFAULT.indexOf('(100003) ') + 4),
    lines.slice(0, lines.indexOf('caguid=0x100008') - 4).join('\n'),
    `${DEFAULT}hello world\n`,
    DEFAULT.replace(port1, `${port1}\n${port1}`),
    DEFAULT.replace('[3]\t"H-0000000000100004"[1](100005)', '[3]\t"H-0000000000100004"[1](1000zz)'),
    captured('grouping'),
    captured('list'),
    '\n \n',
  ];
  for (const text of refusals) {
    assert.match(readChunked(Buffer.from(text), []).toString(), /^refused: /);
    sameInChunks(text);
  }
});

test('an output that stops early is refused naming the ports whose other end never came, with their descriptions', () => {
  const reader = new IbnetdiscoverReader();
  // The first 1,024 bytes end in the middle of the third block's id lines.
  reader.write(Buffer.from(DEFAULT).subarray(0, 1024));
  assert.throws(
    () => reader.end(),
    /4 port\(s\) are printed by one end only \(line 13: port 3 of 0000000000200002 leads to CA 0000000000100004 \("gpu01 HCA-2"\), which has no block; .*; line 21: port 1 of 0000000000200000 leads to switch 0000000000200001 \("MF0;LEAF-SU1-R1:MQM9700\/U1"\), which has no block; and 1 more\)/,
  );
});

test.run();
