// The cables of an ibnetdiscover output, from the port lines that print them.
// Every cable is printed by both of its ends, so an output cut short (a killed
// run, a partly copied file) shows as a port only one end prints, or a peer
// without a block, and is refused rather than read as a smaller fabric. Each
// side is kept as numbers in typed columns (a node's index × 256 + the port),
// and the sides are paired by sorting the cables' keys.

import { grown } from '../../../util/grow-array.ts';
import { IbnetdiscoverFormatError } from './ibnetdiscover-format-error.ts';
import { KIND_OF_CODE, type IbNodeTable } from './ib-node-table.ts';

/** IB port numbers are 8 bits: a side's end is its node's index × 256 + the port. */
export const PORTS_PER_NODE = 256;
/** A cable's two ends as one number: the lower end × 2^25 + the higher (an end is below 2^25). */
const END_SPAN = 2 ** 25;
/** GUIDs an output may name, so that every end is below END_SPAN. */
export const MAX_NODES = END_SPAN / PORTS_PER_NODE;
/** Sides named in a message that refuses a cut-short output. */
const NAMED_PROBLEMS = 3;

const KIND_WORD: Readonly<Record<string, string>> = { switch: 'switch', ca: 'CA', router: 'router' };
const kindWord = (code: number) => KIND_WORD[KIND_OF_CODE[code]!]!;

/** Each cable once, its ends as node indexes of the table and ports. */
export interface IbCableColumns {
  readonly count: number;
  readonly a: Int32Array;
  readonly aPort: Uint8Array;
  readonly b: Int32Array;
  readonly bPort: Uint8Array;
}

/**
 * One side of each cable as a block printed it: its own end, its peer's, the peer's kind as the line names it, and the
 * line's number.
 */
export class CableSides {
  private from = new Int32Array(0);
  private to = new Int32Array(0);
  private toKind = new Uint8Array(0);
  private lineNos = new Int32Array(0);
  private n = 0;

  /** A side of a cable between ports below PORTS_PER_NODE of nodes below MAX_NODES (the reader checks both). */
  add(node: number, port: number, peer: number, peerPort: number, peerKind: number, lineNo: number): void {
    const i = this.n++;
    this.from = grown(this.from, this.n);
    this.to = grown(this.to, this.n);
    this.toKind = grown(this.toKind, this.n);
    this.lineNos = grown(this.lineNos, this.n);
    this.from[i] = node * PORTS_PER_NODE + port;
    this.to[i] = peer * PORTS_PER_NODE + peerPort;
    this.toKind[i] = peerKind;
    this.lineNos[i] = lineNo;
  }

  /** Each cable once, from its two sides; throws when a side has no other half (the output was cut short or edited). */
  pair(nodes: IbNodeTable): IbCableColumns {
    const n = this.n;
    const node = (end: number) => nodes.guid(Math.floor(end / PORTS_PER_NODE));
    const port = (end: number) => end % PORTS_PER_NODE;
    const at = (i: number) => `line ${this.lineNos[i]}: port ${port(this.from[i]!)} of ${node(this.from[i]!)}`;
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
      const peer = Math.floor(to / PORTS_PER_NODE);
      const peerKind = nodes.kindCode(peer);
      if (peerKind === 0) {
        half(
          () =>
            `${at(i)} leads to ${kindWord(this.toKind[i]!)} ${node(to)} ("${nodes.description(peer)}"), which has no block`,
        );
      } else if (peerKind !== this.toKind[i]) {
        throw new IbnetdiscoverFormatError(
          `${at(i)} names ${node(to)} a ${kindWord(this.toKind[i]!)}, but its block is a ${kindWord(peerKind)}'s`,
        );
      }
      keys[i] = from < to ? from * END_SPAN + to : to * END_SPAN + from;
    }
    const sorted = keys.slice().sort();
    const cables = {
      count: 0,
      a: new Int32Array(n >> 1),
      aPort: new Uint8Array(n >> 1),
      b: new Int32Array(n >> 1),
      bPort: new Uint8Array(n >> 1),
    };
    for (let k = 0; k < n; ) {
      const key = sorted[k]!;
      let run = 1;
      while (k + run < n && sorted[k + run] === key) run++;
      const lo = Math.floor(key / END_SPAN);
      const hi = key % END_SPAN;
      if (run === 2) {
        const c = cables.count++;
        cables.a[c] = Math.floor(lo / PORTS_PER_NODE);
        cables.aPort[c] = port(lo);
        cables.b[c] = Math.floor(hi / PORTS_PER_NODE);
        cables.bPort[c] = port(hi);
      } else if (
        nodes.kindCode(Math.floor(lo / PORTS_PER_NODE)) !== 0 &&
        nodes.kindCode(Math.floor(hi / PORTS_PER_NODE)) !== 0
      ) {
        // Printed by one end although both have blocks (a peer without a block is counted above). The side is
        // looked up for its line only when named: a cut output of a large fabric has 10^5 of them.
        half(() => {
          const i = keys.indexOf(key);
          const to = this.to[i]!;
          return `${at(i)} leads to port ${port(to)} of ${node(to)}, whose block does not lead back`;
        });
      }
      k += run;
    }
    if (oneSided > 0) {
      const more = oneSided > halves.length ? `; and ${oneSided - halves.length} more` : '';
      throw new IbnetdiscoverFormatError(
        `the output is cut short or edited: ${oneSided} port(s) are printed by one end only (${halves.join('; ')}${more})`,
      );
    }
    return cables;
  }
}
