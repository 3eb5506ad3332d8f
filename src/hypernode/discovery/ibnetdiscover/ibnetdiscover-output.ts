// The default text format of `ibnetdiscover` (infiniband-diags), read
// completely and as it arrives: one block per node (`vendid=`, `devid=`,
// `sysimgguid=`, `switchguid=` / `caguid=` / `rtguid=`, then the `Switch`, `Ca`
// or `Rt` header with the node's description after `#`) and one line per
// connected port, the peer named `"S-<guid>"[port]`, CA and router ports with
// their port GUID in parentheses. An output that is cut short is refused
// (ib-cables.ts), and so are the other formats ibnetdiscover prints (`-p`,
// `-g`, `-l`, `-H`, `-S`, `-R`), naming the flag; `-s` progress lines and `-f`
// port details are read past.
//
// A large fabric prints tens of MB, so the output is never held: the reader
// takes it chunk by chunk (a pipe's or a file's), keeps only the line a chunk
// ends in the middle of and the head it searches for another format's lines,
// and turns each line into numbers at once (ib-line-readers.ts, ib-node-table.ts).
// A line that does not parse is remembered, the rest is passed over, and the
// error is raised at the end, as for an output read whole.

import { grown } from '../../../util/grow-array.ts';
import { CableSides, MAX_NODES, PORTS_PER_NODE } from './ib-cables.ts';
import { IbnetdiscoverFormatError } from './ib-format-error.ts';
import { IbNodeTable, KIND_CODE, type IbNodeKind } from './ib-node-table.ts';
import { HeaderLineReader, PortLineReader, quotedAfter, startsWith } from './ib-line-readers.ts';
import { IbSubnet } from './ib-subnet.ts';

/** A quoted line is cut to this many characters in messages. */
const QUOTED_LINE_CHARS = 160;
/** Bytes of the output's head searched for another format's lines (and seen to be blank for an empty output). */
const FORMAT_SNIFF_BYTES = 256 * 1024;

const NEWLINE = 0x0a;
/**
 * The longest line read: ibnetdiscover prints a few hundred bytes a line (a node description is at most 64), so a
 * longer one is not its output, and waiting for its end would hold up to maxOutputMiB.
 */
const MAX_LINE_BYTES = 64 * 1024;
const KIND_WORD: Readonly<Record<IbNodeKind, string>> = { switch: 'switch', ca: 'CA', router: 'router' };

/** Lines of a block that carry nothing the topology needs, by the word before `=`. */
const ID_WORDS = ['vendid', 'devid', 'sysimgguid', 'switchguid', 'caguid', 'rtguid'].map((w) =>
  Buffer.from(`${w}=`, 'latin1'),
);
/** The progress lines of `ibnetdiscover -s`, printed before the topology. */
const DR_PATH = Buffer.from('DR path ', 'latin1');

/** The other formats, each by a line only it prints, and the flag that asks for it. */
const OTHER_FORMATS: readonly {
  readonly line: RegExp;
  readonly flag: (lines: readonly string[]) => string;
  readonly what: string;
}[] = [
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

/** Why `head` (the output's first bytes) is not the default format, when it is another one. */
function otherFormat(head: string): string | undefined {
  const lines = head.split('\n');
  for (const format of OTHER_FORMATS) {
    const matching = lines.filter((l) => format.line.test(l));
    if (matching.length > 0)
      return `this is ${format.what} of \`ibnetdiscover ${format.flag(matching)}\`, not its default topology format: run ibnetdiscover without that flag`;
  }
  return undefined;
}

const TOO_MANY_NODES = `names more than ${MAX_NODES} nodes`;

const quote = (line: string) =>
  JSON.stringify(line.length > QUOTED_LINE_CHARS ? `${line.slice(0, QUOTED_LINE_CHARS)}…` : line);

/** Whether bytes[start, end) are a block's id line (`vendid=`, `caguid=`, …). */
function isIdLine(bytes: Uint8Array, start: number, end: number): boolean {
  for (const word of ID_WORDS) if (startsWith(bytes, start, end, word)) return true;
  return false;
}

/** Whether bytes[start, end) hold only blanks (a line between blocks). */
function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] !== 0x20 && bytes[i] !== 0x09 && bytes[i] !== 0x0d) return false;
  return true;
}

/**
 * A copy of bytes[from, to): a chunk's memory is its producer's, and a line of it must not keep the whole chunk alive.
 */
const copyOf = (bytes: Uint8Array, from: number, to: number) => new Uint8Array(bytes.subarray(from, to));

/** bytes[start, end) as text, without a CRLF's CR. */
function lineText(bytes: Uint8Array, start: number, end: number): string {
  const to = end > start && bytes[end - 1] === 0x0d ? end - 1 : end;
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, to - start).toString('utf8');
}

/** Reads the default output of ibnetdiscover as it arrives: write() each chunk, then end(). */
export class IbnetdiscoverReader {
  private readonly nodes = new IbNodeTable();
  private readonly sides = new CableSides();
  private readonly port = new PortLineReader();
  private readonly header = new HeaderLineReader();
  /** The table index of each block, in the order printed. */
  private order = new Int32Array(0);
  private blocks = 0;
  /** The open block's table index, -1 between blocks. */
  private block = -1;
  /** The ports the open block printed (reset at each header). */
  private readonly printed = new Uint8Array(PORTS_PER_NODE);
  private lineNo = 0;
  /** The pieces of the line the last chunk ended in the middle of, and their bytes. */
  private partial: Uint8Array[] = [];
  private partialBytes = 0;
  /** Copies of the output's first FORMAT_SNIFF_BYTES. */
  private readonly head: Uint8Array[] = [];
  private headBytes = 0;
  /** Why the first line that does not parse does not; later lines are not read. */
  private failure: string | undefined;

  write(chunk: Uint8Array): void {
    this.keepHead(chunk);
    if (this.failure !== undefined) return;
    let start = 0;
    if (this.partial.length > 0) {
      const newline = chunk.indexOf(NEWLINE);
      if (newline < 0) {
        this.keepPartial(chunk, 0);
        return;
      }
      const line = Buffer.concat([...this.partial, chunk.subarray(0, newline)]);
      this.partial = [];
      this.partialBytes = 0;
      this.line(line, 0, line.length, false);
      start = newline + 1;
    }
    for (
      let newline = chunk.indexOf(NEWLINE, start);
      newline >= 0 && this.failure === undefined;
      newline = chunk.indexOf(NEWLINE, start)
    ) {
      this.line(chunk, start, newline, false);
      start = newline + 1;
    }
    if (start < chunk.length && this.failure === undefined) this.keepPartial(chunk, start);
  }

  /** Keeps chunk[start…] as the start of the next line; a line past MAX_LINE_BYTES fails the output instead. */
  private keepPartial(chunk: Uint8Array, start: number): void {
    this.partialBytes += chunk.length - start;
    if (this.partialBytes > MAX_LINE_BYTES) {
      this.partial = [];
      this.failure = `line ${this.lineNo + 1} is longer than ${MAX_LINE_BYTES} bytes; ibnetdiscover prints lines of a few hundred`;
      return;
    }
    this.partial.push(copyOf(chunk, start, chunk.length));
  }

  /**
   * The subnet the output describes. Throws an IbnetdiscoverFormatError naming
   * the line, the flag or the missing half when the output is empty, another
   * format, garbage, or cut short.
   */
  end(): IbSubnet {
    const head = Buffer.concat(this.head).toString('utf8');
    if (head.trim() === '') {
      throw new IbnetdiscoverFormatError(
        'the output is empty (ibnetdiscover printed nothing; a file argument makes it write the topology there instead of to stdout)',
      );
    }
    if (this.partial.length > 0 && this.failure === undefined) {
      const last = Buffer.concat(this.partial);
      this.partial = [];
      this.line(last, 0, last.length, true);
    }
    if (this.failure !== undefined) throw new IbnetdiscoverFormatError(otherFormat(head) ?? this.failure);
    if (this.blocks === 0)
      throw new IbnetdiscoverFormatError(
        otherFormat(head) ??
          'the output holds no node block (no Switch, Ca or Rt line): is it the output of ibnetdiscover?',
      );
    return new IbSubnet(this.nodes, this.order.subarray(0, this.blocks), this.sides.pair(this.nodes));
  }

  private keepHead(chunk: Uint8Array): void {
    if (this.headBytes >= FORMAT_SNIFF_BYTES) return;
    const part = copyOf(chunk, 0, Math.min(chunk.length, FORMAT_SNIFF_BYTES - this.headBytes));
    this.head.push(part);
    this.headBytes += part.length;
  }

  /** Reads bytes[start, end), the next line; `last` when the output ends with it, unterminated. */
  private line(bytes: Uint8Array, start: number, end: number, last: boolean): void {
    this.lineNo++;
    const first = bytes[start];
    let why: string | undefined;
    if (first === 0x5b /* [ */) why = this.portLine(bytes, start, end);
    else if (isBlank(bytes, start, end) || isIdLine(bytes, start, end)) this.block = -1;
    else if (first !== 0x23 /* # */ && !startsWith(bytes, start, end, DR_PATH))
      why = this.headerLine(bytes, start, end);
    if (why === undefined) return;
    const line = quote(lineText(bytes, start, end));
    this.failure = last
      ? `the output ends in the middle of line ${this.lineNo} ${line}: it is cut short`
      : `line ${this.lineNo} ${line} ${why}`;
  }

  /** Reads a port line of the open block; why it cannot, if it cannot. */
  private portLine(bytes: Uint8Array, start: number, end: number): string | undefined {
    const { port, nodes } = this;
    if (this.block < 0) return 'is a port line outside a node block';
    if (!port.read(bytes, start, end)) return `is not a port line of ${this.blockName()}`;
    if (port.port >= PORTS_PER_NODE || port.peerPort >= PORTS_PER_NODE) return 'names a port past 255';
    if (this.printed[port.port]) return `prints port ${port.port} of ${this.blockName()} a second time`;
    this.printed[port.port] = 1;
    if (port.ownGuid) nodes.addPortGuid(this.block, port.ownHi, port.ownLo);
    const peer = nodes.index(port.peerHi, port.peerLo);
    if (peer >= MAX_NODES) return TOO_MANY_NODES;
    // A peer's description as this line prints it, kept until its block says it, for the message if it never does.
    if (!nodes.hasDescription(peer)) {
      const described = quotedAfter(bytes, port.hash, end);
      if (described) nodes.describe(peer, bytes, described.from, described.to);
    }
    this.sides.add(this.block, port.port, peer, port.peerPort, port.peerKind, this.lineNo);
    return undefined;
  }

  /**
   * The open block's node as messages name it (made only for a message: a closure per line costs the shipped bundle a
   * name).
   */
  private blockName(): string {
    return `${KIND_WORD[this.nodes.kind(this.block)!]} ${this.nodes.guid(this.block)}`;
  }

  /** Reads a node's header; why it cannot, if it cannot. */
  private headerLine(bytes: Uint8Array, start: number, end: number): string | undefined {
    const { nodes, header } = this;
    if (!header.read(bytes, start, end))
      return 'is neither a node header, a port line nor a block line of the default format';
    if (header.letterKind !== KIND_CODE[header.kind])
      return `names a ${header.word} "${String.fromCharCode(header.letter)}-…"; the letter does not match`;
    const index = nodes.index(header.guidHi, header.guidLo);
    if (index >= MAX_NODES) return TOO_MANY_NODES;
    if (nodes.kind(index) !== undefined) return `prints node ${nodes.guid(index)} a second time`;
    nodes.setBlock(index, header.kind);
    nodes.describe(index, bytes, header.descFrom, header.descTo);
    this.order = grown(this.order, this.blocks + 1);
    this.order[this.blocks++] = index;
    this.block = index;
    this.printed.fill(0);
    return undefined;
  }
}

/** The subnet in `output`, an output of ibnetdiscover read whole (see IbnetdiscoverReader.end for what it refuses). */
export function parseIbnetdiscoverOutput(output: Buffer | string): IbSubnet {
  const reader = new IbnetdiscoverReader();
  reader.write(typeof output === 'string' ? Buffer.from(output) : output);
  return reader.end();
}
