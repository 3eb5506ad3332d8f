// The default text format of `ibnetdiscover` (infiniband-diags), read
// completely: one block per node (`vendid=`, `devid=`, `sysimgguid=`,
// `switchguid=` / `caguid=` / `rtguid=`, then the `Switch`, `Ca` or `Rt`
// header with the node's description after `#`) and one line per connected
// port, the peer named `"S-<guid>"[port]`, CA and router ports with their port
// GUID in parentheses. Every cable is printed by both of its ends, so an
// output cut short (a killed run, a partly copied file) shows as a port that
// only one end prints, or a peer without a block, and is refused rather than
// read as a smaller fabric. The other formats ibnetdiscover prints (`-p`,
// `-g`, `-l`, `-H`, `-S`, `-R`) are refused naming the flag; `-s` progress
// lines and `-f` port details are read past. Written for 10^6 lines: one pass,
// port lines (nearly all of them) read byte by byte into numbers with no
// object or string made per line, a cable's two sides as numbers, and every
// string kept (GUIDs, descriptions) made from its own line, so no name holds
// the whole output in memory after the poll.

/** What a node is; SHARP aggregation nodes and hosts are both `ca`. */
export type IbNodeKind = 'switch' | 'ca' | 'router';

export interface IbNode {
  readonly kind: IbNodeKind;
  /** Node GUID, 16 lower-case hex digits. */
  readonly guid: string;
  /** The node description as printed (a host's is `<hostname> <device>` by rdma-ndd's default). */
  readonly description: string;
  /** A CA's or router's port GUIDs (16 hex digits), as its own block prints them. */
  readonly portGuids: readonly string[];
}

/** A cable between port `aPort` of node `a` and port `bPort` of node `b` (node GUIDs), printed by both ends; parallel cables are separate links. */
export interface IbLink {
  readonly a: string;
  readonly aPort: number;
  readonly b: string;
  readonly bPort: number;
}

export interface IbSubnet {
  /** By node GUID. */
  readonly nodes: ReadonlyMap<string, IbNode>;
  readonly links: readonly IbLink[];
}

/** Links named in a message that refuses a cut-short output. */
const NAMED_PROBLEMS = 3;
/** A quoted line is cut to this many characters in messages. */
const QUOTED_LINE_CHARS = 160;

const KIND_OF_HEADER: Readonly<Record<string, IbNodeKind>> = { Switch: 'switch', Ca: 'ca', Rt: 'router' };
const KIND_OF_LETTER: Readonly<Record<string, IbNodeKind>> = { S: 'switch', H: 'ca', R: 'router' };
const KIND_WORD: Readonly<Record<IbNodeKind, string>> = { switch: 'switch', ca: 'CA', router: 'router' };

/** `Switch	36 "S-…"		# "description" base port 0 …`; `Ca	2 "H-…"		# "description"`. */
const HEADER = /^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]{1,16})"\s*#\s*"(.*)"/;
/** Lines of a block that carry nothing the topology needs, by the word before `=`. */
const ID_WORDS = ['vendid', 'devid', 'sysimgguid', 'switchguid', 'caguid', 'rtguid'].map((w) => Buffer.from(`${w}=`, 'latin1'));

/** The other formats, each by a line only it prints, and the flag that asks for it. */
const OTHER_FORMATS: readonly { readonly line: RegExp; readonly flag: (lines: readonly string[]) => string; readonly what: string }[] = [
  { line: /^(SW|CA|RT)\s+\d+\s+\d+\s+0x[0-9a-fA-F]+\s/, flag: () => '-p', what: 'the ports report' },
  { line: /^(Non-Chassis Nodes$|Chassis \d+|# Spine Nodes|# Line Nodes)/, flag: () => '-g', what: 'the grouping' },
  { line: /^(Ca|Switch|Router)\s+: 0x[0-9a-fA-F]+ ports \d+/, flag: listFlag, what: 'a node list' },
];

/** `-H`, `-S`, `-R` list one kind of node; `-l` all of them. */
function listFlag(lines: readonly string[]): string {
  const kinds = new Set(lines.map((l) => /^(Ca|Switch|Router)\s+: 0x/.exec(l)?.[1]).filter((k) => k !== undefined));
  if (kinds.size !== 1) return '-l';
  return { Ca: '-H (or -l)', Switch: '-S (or -l)', Router: '-R (or -l)' }[[...kinds][0]!]!;
}

export class IbnetdiscoverFormatError extends Error {
  override readonly name = 'IbnetdiscoverFormatError';
}

const quote = (line: string) => JSON.stringify(line.length > QUOTED_LINE_CHARS ? `${line.slice(0, QUOTED_LINE_CHARS)}…` : line);

/** Bytes of the output's head searched for another format's lines. */
const FORMAT_SNIFF_BYTES = 256 * 1024;

/** The format `output` is in when it is not the default one, for the refusal. */
function otherFormat(output: Buffer): string | undefined {
  const lines = output.subarray(0, FORMAT_SNIFF_BYTES).toString('utf8').split('\n');
  for (const format of OTHER_FORMATS) {
    const matching = lines.filter((l) => format.line.test(l));
    if (matching.length > 0) return `this is ${format.what} of \`ibnetdiscover ${format.flag(matching)}\`, not its default topology format: run ibnetdiscover without that flag`;
  }
  return undefined;
}

/** IB port numbers are 8 bits: a side's end is its node's index × 256 + the port. */
const PORTS_PER_NODE = 256;

type ParsedNode = IbNode & { readonly portGuids: string[] };

/**
 * The subnet in `output`, the default output of ibnetdiscover. Throws an
 * IbnetdiscoverFormatError naming the line, the flag or the missing half when
 * the output is empty, another format, garbage, or cut short.
 */
export function parseIbnetdiscoverOutput(output: Buffer | string): IbSubnet {
  const bytes = typeof output === 'string' ? Buffer.from(output) : output;
  if (bytes.toString('utf8', 0, Math.min(bytes.length, FORMAT_SNIFF_BYTES)).trim() === '')
    throw new IbnetdiscoverFormatError('the output is empty (ibnetdiscover printed nothing; a file argument makes it write the topology there instead of to stdout)');
  const nodes = new Map<string, ParsedNode>();
  const guids = new GuidIndex();
  let lines = 1;
  for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) lines++;
  const sides = new Sides(lines);
  const port = new PortLineReader();
  let block: { readonly node: ParsedNode; readonly index: number } | undefined;
  /** The ports the open block printed (reset at each header). */
  const printed = new Uint8Array(PORTS_PER_NODE);
  let lineNo = 0;
  let start = 0;
  const lineAt = (from: number, to: number) => bytes.toString('utf8', from, to > from && bytes[to - 1] === 0x0d ? to - 1 : to);
  const garbage = (line: string, why: string): never => {
    const other = otherFormat(bytes);
    if (other) throw new IbnetdiscoverFormatError(other);
    const cut = start >= bytes.length && bytes[bytes.length - 1] !== 0x0a;
    throw new IbnetdiscoverFormatError(cut ? `the output ends in the middle of line ${lineNo} ${quote(line)}: it is cut short` : `line ${lineNo} ${quote(line)} ${why}`);
  };
  while (start < bytes.length) {
    const lineStart = start;
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    start = end + 1;
    lineNo++;
    const first = bytes[lineStart];
    if (first === 0x5b /* [ */) {
      if (!block) return garbage(lineAt(lineStart, end), 'is a port line outside a node block');
      const { node } = block;
      if (!port.read(bytes, lineStart, end)) return garbage(lineAt(lineStart, end), `is not a port line of ${KIND_WORD[node.kind]} ${node.guid}`);
      if (port.port >= PORTS_PER_NODE || port.peerPort >= PORTS_PER_NODE) garbage(lineAt(lineStart, end), 'names a port past 255');
      if (printed[port.port]) garbage(lineAt(lineStart, end), `prints port ${port.port} of ${KIND_WORD[node.kind]} ${node.guid} a second time`);
      printed[port.port] = 1;
      if (port.ownGuid) node.portGuids.push(guidText(port.ownHi, port.ownLo));
      const peer = guids.index(port.peerHi, port.peerLo);
      sides.add(block.index * PORTS_PER_NODE + port.port, peer * PORTS_PER_NODE + port.peerPort, port.peerKind, lineNo, lineStart);
      continue;
    }
    if (isBlank(bytes, lineStart, end)) {
      block = undefined;
      continue;
    }
    if (first === 0x23 /* # */ || startsWith(bytes, lineStart, end, DR_PATH)) continue;
    if (isIdLine(bytes, lineStart, end)) {
      block = undefined;
      continue;
    }
    // Header lines are few (one a node): each is decoded from its own bytes, so what is kept of it holds no more than the line.
    const line = lineAt(lineStart, end);
    const h = HEADER.exec(line);
    if (!h) return garbage(line, 'is neither a node header, a port line nor a block line of the default format');
    const kind = KIND_OF_HEADER[h[1]!]!;
    if (KIND_OF_LETTER[h[3]!] !== kind) garbage(line, `names a ${h[1]} "${h[3]}-…"; the letter does not match`);
    const [hi, lo] = hexHalves(h[4]!);
    const index = guids.index(hi, lo);
    const guid = guids.guid(index);
    if (nodes.has(guid)) garbage(line, `prints node ${guid} a second time`);
    // The description from its own bytes: flat, and exact in UTF-8 (the line's quotes are ASCII).
    const open = bytes.indexOf(0x22, bytes.indexOf(0x23, lineStart));
    const close = bytes.lastIndexOf(0x22, end - 1);
    const node: ParsedNode = { kind, guid, description: bytes.toString('utf8', open + 1, close), portGuids: [] };
    nodes.set(guid, node);
    block = { node, index };
    printed.fill(0);
  }
  if (nodes.size === 0) {
    throw new IbnetdiscoverFormatError(otherFormat(bytes) ?? 'the output holds no node block (no Switch, Ca or Rt line): is it the output of ibnetdiscover?');
  }
  return { nodes, links: sides.pair(guids, nodes, (from) => lineAt(from, bytes.indexOf(0x0a, from) < 0 ? bytes.length : bytes.indexOf(0x0a, from))) };
}

/** The progress lines of `ibnetdiscover -s`, printed before the topology. */
const DR_PATH = Buffer.from('DR path ', 'latin1');

/** Whether bytes[start, end) are a block's id line (`vendid=`, `caguid=`, …). */
function isIdLine(bytes: Buffer, start: number, end: number): boolean {
  for (const word of ID_WORDS) if (startsWith(bytes, start, end, word)) return true;
  return false;
}

/** Whether bytes[start, end) begin with `prefix`. */
function startsWith(bytes: Buffer, start: number, end: number, prefix: Buffer): boolean {
  if (end - start < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[start + i] !== prefix[i]) return false;
  return true;
}

/** Whether bytes[start, end) hold only blanks (a line between blocks). */
function isBlank(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] !== 0x20 && bytes[i] !== 0x09 && bytes[i] !== 0x0d) return false;
  return true;
}

/** Every GUID the output names, by its two 32-bit halves (no string made per line), each given an index the first time. */
class GuidIndex {
  private readonly byHalves = new Map<number, Map<number, number>>();
  private readonly guids: string[] = [];

  index(hi: number, lo: number): number {
    let los = this.byHalves.get(hi);
    if (!los) this.byHalves.set(hi, (los = new Map()));
    let i = los.get(lo);
    if (i === undefined) {
      i = this.guids.length;
      los.set(lo, i);
      this.guids.push(guidText(hi, lo));
    }
    return i;
  }

  guid(index: number): string {
    return this.guids[index]!;
  }

  get size(): number {
    return this.guids.length;
  }
}

const HEX_CODES = [...'0123456789abcdef'].map((c) => c.charCodeAt(0));

/** 16 lower-case hex digits of a GUID's halves, as one flat string (tens of thousands are kept). */
function guidText(hi: number, lo: number): string {
  const codes: number[] = [];
  for (const half of [hi, lo]) for (let shift = 28; shift >= 0; shift -= 4) codes.push(HEX_CODES[Math.floor(half / 2 ** shift) % 16]!);
  return String.fromCharCode(...codes);
}

/** A GUID of up to 16 hex digits as its upper and lower 32 bits (exact in doubles). */
function hexHalves(hex: string): [number, number] {
  return [Number.parseInt(hex.slice(0, -8) || '0', 16), Number.parseInt(hex.slice(-8), 16)];
}

/** The value of a hex digit byte, or -1. */
function hexDigit(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

/**
 * Reads port lines byte by byte (the grammar `[N]` `[ext N]`? `(guid)`? then
 * `"S-guid"[N]` `[ext N]`? `(guid)`? and `#`) into its own fields, reused from
 * line to line: the hundreds of thousands of port lines of a large fabric then
 * make no object and no string.
 */
class PortLineReader {
  port = 0;
  ownGuid = false;
  ownHi = 0;
  ownLo = 0;
  peerKind: IbNodeKind = 'switch';
  peerHi = 0;
  peerLo = 0;
  peerPort = 0;
  private bytes: Buffer = Buffer.alloc(0);
  private i = 0;
  private end = 0;
  private hi = 0;
  private lo = 0;

  /** Reads bytes[start, end); false when it is no port line. */
  read(bytes: Buffer, start: number, end: number): boolean {
    this.bytes = bytes;
    this.i = start;
    this.end = end;
    if (bytes[this.i++] !== 0x5b) return false;
    this.port = this.number();
    if (this.port < 0 || bytes[this.i++] !== 0x5d || !this.ext()) return false;
    this.ownGuid = bytes[this.i] === 0x28;
    if (this.ownGuid) {
      this.i++;
      if (!this.guid() || bytes[this.i++] !== 0x29) return false;
      this.ownHi = this.hi;
      this.ownLo = this.lo;
    }
    const before = this.i;
    this.blanks();
    if (this.i === before || bytes[this.i++] !== 0x22) return false;
    const kind = KIND_OF_LETTER[String.fromCharCode(bytes[this.i++]!)];
    if (!kind || bytes[this.i++] !== 0x2d || !this.guid() || bytes[this.i++] !== 0x22 || bytes[this.i++] !== 0x5b) return false;
    this.peerKind = kind;
    this.peerHi = this.hi;
    this.peerLo = this.lo;
    this.peerPort = this.number();
    if (this.peerPort < 0 || bytes[this.i++] !== 0x5d || !this.ext()) return false;
    this.blanks();
    if (bytes[this.i] === 0x28) {
      this.i++;
      if (!this.guid() || bytes[this.i++] !== 0x29) return false;
      this.blanks();
    }
    return bytes[this.i] === 0x23;
  }

  /** A decimal number, or -1 when there is none. */
  private number(): number {
    const { bytes, end } = this;
    const from = this.i;
    let n = 0;
    while (this.i < end && bytes[this.i]! >= 0x30 && bytes[this.i]! <= 0x39) n = n * 10 + bytes[this.i++]! - 0x30;
    return this.i > from ? n : -1;
  }

  /** Up to 16 hex digits into hi and lo (the upper and lower 32 bits, exact in doubles). */
  private guid(): boolean {
    const { bytes, end } = this;
    const from = this.i;
    let hi = 0;
    let lo = 0;
    for (; this.i < end && this.i - from < 16; this.i++) {
      const d = hexDigit(bytes[this.i]!);
      if (d < 0) break;
      hi = hi * 16 + Math.floor(lo / 2 ** 28);
      lo = (lo % 2 ** 28) * 16 + d;
    }
    this.hi = hi;
    this.lo = lo;
    return this.i > from && hexDigit(bytes[this.i]!) < 0;
  }

  /** An optional `[ext N]` (printed with -g only). */
  private ext(): boolean {
    const { bytes } = this;
    if (bytes[this.i] !== 0x5b || bytes[this.i + 1] !== 0x65 /* [e */) return true;
    if (bytes.toString('latin1', this.i, this.i + 5) !== '[ext ') return false;
    this.i += 5;
    return this.number() >= 0 && bytes[this.i++] === 0x5d;
  }

  private blanks(): void {
    const { bytes, end } = this;
    while (this.i < end && (bytes[this.i] === 0x20 || bytes[this.i] === 0x09)) this.i++;
  }
}

/** The kinds as small numbers, for the per-GUID tables of Sides. */
const KIND_CODE: Readonly<Record<IbNodeKind, number>> = { switch: 1, ca: 2, router: 3 };
const KIND_OF_CODE: readonly IbNodeKind[] = ['switch', 'switch', 'ca', 'router'];
/** A cable's two ends as one number: the lower end × 2^25 + the higher (an end is below 2^25: 131,072 nodes × 256 ports). */
const END_SPAN = 2 ** 25;

/**
 * One side of each link as a block printed it: its own end and its peer's
 * (node index × 256 + port), the peer's kind as the line names it, and the
 * line. Paired by sorting the cables' keys: each must be printed twice.
 */
class Sides {
  private from: Int32Array;
  private to: Int32Array;
  private toKind: Uint8Array;
  private lineNos: Int32Array;
  /** Where each side's line starts (its end is the next newline): for messages only. */
  private starts: Int32Array;
  private n = 0;

  /** Room for `expected` sides (the output's line count bounds them), so a large output's columns are allocated once, off the heap. */
  constructor(expected: number) {
    this.from = new Int32Array(expected);
    this.to = new Int32Array(expected);
    this.toKind = new Uint8Array(expected);
    this.lineNos = new Int32Array(expected);
    this.starts = new Int32Array(expected);
  }

  add(from: number, to: number, toKind: IbNodeKind, lineNo: number, lineStart: number): void {
    if (from >= END_SPAN || to >= END_SPAN) throw new IbnetdiscoverFormatError(`line ${lineNo}: more than ${END_SPAN / PORTS_PER_NODE} nodes`);
    const i = this.n++;
    this.from[i] = from;
    this.to[i] = to;
    this.toKind[i] = KIND_CODE[toKind];
    this.lineNos[i] = lineNo;
    this.starts[i] = lineStart;
  }

  /** Each link once, from its two sides; a side without its other half means the output was cut short. */
  pair(guids: GuidIndex, nodes: ReadonlyMap<string, IbNode>, lineAt: (from: number) => string): IbLink[] {
    const n = this.n;
    const node = (end: number) => guids.guid(Math.floor(end / PORTS_PER_NODE));
    const port = (end: number) => end % PORTS_PER_NODE;
    const at = (i: number) => `line ${this.lineNos[i]}: port ${port(this.from[i]!)} of ${node(this.from[i]!)}`;
    // The kind of each GUID's block (0: no block), by index.
    const blockKind = new Uint8Array(guids.size);
    for (let g = 0; g < guids.size; g++) {
      const own = nodes.get(guids.guid(g));
      if (own) blockKind[g] = KIND_CODE[own.kind];
    }
    /** The first few sides printed by one end only, and how many there are. */
    const halves: string[] = [];
    let oneSided = 0;
    const half = (message: () => string) => {
      if (oneSided++ < NAMED_PROBLEMS) halves.push(message());
    };
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const from = this.from[i]!;
      const to = this.to[i]!;
      const peerKind = blockKind[Math.floor(to / PORTS_PER_NODE)]!;
      if (peerKind === 0) {
        half(() => {
          const printed = lineAt(this.starts[i]!);
          const described = printed.slice(printed.indexOf('"', printed.indexOf('#')) + 1, printed.lastIndexOf('"'));
          return `${at(i)} leads to ${KIND_WORD[KIND_OF_CODE[this.toKind[i]!]!]} ${node(to)} ("${described}"), which has no block`;
        });
      } else if (peerKind !== this.toKind[i]) {
        throw new IbnetdiscoverFormatError(`${at(i)} names ${node(to)} a ${KIND_WORD[KIND_OF_CODE[this.toKind[i]!]!]}, but its block is a ${KIND_WORD[KIND_OF_CODE[peerKind]!]}'s`);
      }
      keys[i] = from < to ? from * END_SPAN + to : to * END_SPAN + from;
    }
    const sorted = keys.slice().sort();
    const links: IbLink[] = [];
    for (let k = 0; k < n; ) {
      const key = sorted[k]!;
      let run = 1;
      while (k + run < n && sorted[k + run] === key) run++;
      const lo = Math.floor(key / END_SPAN);
      const hi = key % END_SPAN;
      if (run === 2) links.push({ a: node(lo), aPort: port(lo), b: node(hi), bPort: port(hi) });
      else {
        // Printed by one end (a cut output); the side is found for its line (a peer without a block is counted above).
        const i = keys.indexOf(key);
        const to = this.to[i]!;
        if (blockKind[Math.floor(to / PORTS_PER_NODE)] !== 0) half(() => `${at(i)} leads to port ${port(to)} of ${node(to)}, whose block does not lead back`);
      }
      k += run;
    }
    if (oneSided > 0) {
      const more = oneSided > halves.length ? `; and ${oneSided - halves.length} more` : '';
      throw new IbnetdiscoverFormatError(`the output is cut short or edited: ${oneSided} port(s) are printed by one end only (${halves.join('; ')}${more})`);
    }
    return links;
  }
}
