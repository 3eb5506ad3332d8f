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
// lines and `-f` port details are read past. Written for 10^6 lines: one pass
// over the bytes, one regular expression per port line, and every string kept
// made from its own line, so no name holds the whole output in memory.

import { firstFew } from '../../../util/first-few.ts';

/** What a node is; SHARP aggregation nodes and hosts are both `ca`. */
export type IbNodeKind = 'switch' | 'ca' | 'router';

export interface IbNode {
  readonly kind: IbNodeKind;
  /** Node GUID, 16 lower-case hex digits. */
  readonly guid: string;
  /** The node description as printed (a host's is `<hostname> <device>` by rdma-ndd's default). */
  readonly description: string;
  /** A CA's or router's port GUIDs (16 hex digits) by port number, as its own block prints them. */
  readonly portGuids: ReadonlyMap<number, string>;
}

export interface IbPortRef {
  /** Node GUID of the port's node. */
  readonly node: string;
  readonly port: number;
}

/** A cable, printed by both ends; parallel cables between two nodes are separate links. */
export interface IbLink {
  readonly a: IbPortRef;
  readonly b: IbPortRef;
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
/**
 * `[35]	"S-…"[1]		# …` (a switch's port), `[1](e09d…) 	"S-…"[2]		# …` (a CA's),
 * the peer's port GUID after a CA peer; `[ext N]` appears only with -g.
 */
const PORT = /^\[(\d+)\](?:\[ext \d+\])?(?:\(([0-9a-fA-F]{1,16})\))?\s+"([SHR])-([0-9a-fA-F]{1,16})"\[(\d+)\](?:\[ext \d+\])?\s*(?:\(([0-9a-fA-F]{1,16})\))?\s*#/;
/** Lines of a block that carry nothing the topology needs. */
const ID_LINE = /^(vendid|devid|sysimgguid|switchguid|caguid|rtguid)=/;

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

const hex16 = (hex: string) => hex.toLowerCase().padStart(16, '0');
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

interface OpenBlock {
  readonly node: IbNode & { readonly portGuids: Map<number, string> };
  readonly ports: Set<number>;
  readonly line: number;
}

/** One side of a link as a block printed it, for the both-ends check. */
interface Side {
  readonly from: IbPortRef;
  readonly to: IbPortRef;
  readonly toKind: IbNodeKind;
  readonly line: number;
  /** The peer's description as this line prints it, for messages about a peer without a block. */
  readonly toDescription: string;
}

const portKey = (p: IbPortRef) => `${p.node}:${p.port}`;

/**
 * The subnet in `output`, the default output of ibnetdiscover. Throws an
 * IbnetdiscoverFormatError naming the line, the flag or the missing half when
 * the output is empty, another format, garbage, or cut short.
 */
export function parseIbnetdiscoverOutput(output: Buffer | string): IbSubnet {
  const bytes = typeof output === 'string' ? Buffer.from(output) : output;
  if (bytes.toString('utf8', 0, Math.min(bytes.length, FORMAT_SNIFF_BYTES)).trim() === '')
    throw new IbnetdiscoverFormatError('the output is empty (ibnetdiscover printed nothing; a file argument makes it write the topology there instead of to stdout)');
  const nodes = new Map<string, IbNode & { readonly portGuids: Map<number, string> }>();
  /** Sides by their own end, `node:port`. */
  const sides = new Map<string, Side>();
  let block: OpenBlock | undefined;
  let lineNo = 0;
  let start = 0;
  const garbage = (line: string, why: string): never => {
    const other = otherFormat(bytes);
    if (other) throw new IbnetdiscoverFormatError(other);
    const cut = start >= bytes.length && bytes[bytes.length - 1] !== 0x0a;
    throw new IbnetdiscoverFormatError(cut ? `the output ends in the middle of line ${lineNo} ${quote(line)}: it is cut short` : `line ${lineNo} ${quote(line)} ${why}`);
  };
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    const line = bytes.toString('utf8', start, end > start && bytes[end - 1] === 0x0d ? end - 1 : end);
    start = end + 1;
    lineNo++;
    const first = line.charCodeAt(0);
    if (first === 0x5b /* [ */) {
      if (!block) garbage(line, 'is a port line outside a node block');
      const m = PORT.exec(line);
      if (!m) return garbage(line, `is not a port line of ${KIND_WORD[block!.node.kind]} ${block!.node.guid}`);
      const port = Number(m[1]);
      const { node } = block!;
      if (block!.ports.has(port)) garbage(line, `prints port ${port} of ${KIND_WORD[node.kind]} ${node.guid} a second time`);
      block!.ports.add(port);
      if (m[2] !== undefined) node.portGuids.set(port, hex16(m[2]));
      const hash = line.indexOf('#');
      const firstQuote = line.indexOf('"', hash);
      const lastQuote = line.lastIndexOf('"');
      const side: Side = {
        from: { node: node.guid, port },
        to: { node: hex16(m[4]!), port: Number(m[5]) },
        toKind: KIND_OF_LETTER[m[3]!]!,
        line: lineNo,
        toDescription: firstQuote >= 0 && lastQuote > firstQuote ? line.slice(firstQuote + 1, lastQuote) : '',
      };
      sides.set(portKey(side.from), side);
      continue;
    }
    if (line.length === 0 || line.trim() === '') {
      block = undefined;
      continue;
    }
    if (first === 0x23 /* # */ || line.startsWith('DR path ')) continue;
    if (ID_LINE.test(line)) {
      block = undefined;
      continue;
    }
    const h = HEADER.exec(line);
    if (!h) return garbage(line, 'is neither a node header, a port line nor a block line of the default format');
    const kind = KIND_OF_HEADER[h[1]!]!;
    if (KIND_OF_LETTER[h[3]!] !== kind) garbage(line, `names a ${h[1]} "${h[3]}-…"; the letter does not match`);
    const guid = hex16(h[4]!);
    if (nodes.has(guid)) garbage(line, `prints node ${guid} a second time`);
    const node = { kind, guid, description: h[5]!, portGuids: new Map<number, string>() };
    nodes.set(guid, node);
    block = { node, ports: new Set(), line: lineNo };
  }
  if (nodes.size === 0) {
    throw new IbnetdiscoverFormatError(otherFormat(bytes) ?? 'the output holds no node block (no Switch, Ca or Rt line): is it the output of ibnetdiscover?');
  }
  return { nodes, links: pairSides(nodes, sides) };
}

/** Each link once, from its two sides; a side without its other half means the output was cut short. */
function pairSides(nodes: ReadonlyMap<string, IbNode>, sides: ReadonlyMap<string, Side>): IbLink[] {
  const links: IbLink[] = [];
  const halves: string[] = [];
  for (const [key, side] of sides) {
    const peer = nodes.get(side.to.node);
    if (!peer) {
      halves.push(
        `line ${side.line}: port ${side.from.port} of ${side.from.node} leads to ${KIND_WORD[side.toKind]} ${side.to.node} ("${side.toDescription}"), which has no block`,
      );
      continue;
    }
    if (peer.kind !== side.toKind) {
      throw new IbnetdiscoverFormatError(
        `line ${side.line}: port ${side.from.port} of ${side.from.node} names ${side.to.node} a ${KIND_WORD[side.toKind]}, but its block is a ${KIND_WORD[peer.kind]}'s`,
      );
    }
    const back = sides.get(portKey(side.to));
    if (!back || back.to.node !== side.from.node || back.to.port !== side.from.port) {
      halves.push(`line ${side.line}: port ${side.from.port} of ${side.from.node} leads to port ${side.to.port} of ${side.to.node}, whose block does not lead back`);
      continue;
    }
    // Each link once: from the side whose key sorts first.
    if (key < portKey(side.to)) links.push({ a: side.from, b: side.to });
  }
  if (halves.length > 0) {
    throw new IbnetdiscoverFormatError(`the output is cut short or edited: ${halves.length} port(s) are printed by one end only (${firstFew(halves, NAMED_PROBLEMS, '; ')})`);
  }
  return links;
}
