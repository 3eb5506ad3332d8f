// The nodes an ibnetdiscover output names, by GUID, in typed columns. A large
// fabric's output names ~10^5 GUIDs on ~10^6 lines: each GUID is found by its
// two 32-bit halves in an open-addressing table (no string or number object is
// made per line), gets a dense index the first time it is named (as a node
// block or as a port's peer), and what is known of it — its block's kind, its
// description, its port GUIDs — is kept as numbers and bytes, made into
// strings only when read. The whole table of a 65,536-HCA fabric is a few MB.

import { grown } from '../../../util/grow-array.ts';
import { FABRIC_NAME_MAX_BYTES, fabricName } from '../../model/fabric-names.ts';

/** What a node is; SHARP aggregation nodes and hosts are both `ca`. */
export type IbNodeKind = 'switch' | 'ca' | 'router';

/** A node's kind as a byte (0: no block read yet). */
export const KIND_CODE: Readonly<Record<IbNodeKind, number>> = { switch: 1, ca: 2, router: 3 };
export const KIND_OF_CODE: readonly (IbNodeKind | undefined)[] = [undefined, 'switch', 'ca', 'router'];

/** Slots per GUID at most: lookups stay short. */
const MAX_LOAD = 0.5;
/** The bytes of a description kept: a name's cap and a character more, so fabricName still sees it was cut. */
const DESCRIPTION_KEPT_BYTES = FABRIC_NAME_MAX_BYTES + 4;

/** 16 lower-case hex digits of a GUID's halves. */
export function guidText(hi: number, lo: number): string {
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

export class IbNodeTable {
  /** GUIDs named so far: indexes are 0 … size-1. */
  size = 0;
  /** Index + 1 of the GUID in each slot, 0 for an empty slot; the length is a power of two. */
  private slots = new Int32Array(1 << 12);
  private hi = new Uint32Array(0);
  private lo = new Uint32Array(0);
  private kinds = new Uint8Array(0);
  /** Each GUID's description as a range of `text` (length -1: none yet). */
  private descStart = new Int32Array(0);
  private descLength = new Int32Array(0);
  private text = new Uint8Array(1 << 16);
  private textUsed = 0;
  /** Each GUID's own port GUIDs, a range of the port columns (a block's port lines are consecutive). */
  private portStart = new Int32Array(0);
  private portCount = new Int32Array(0);
  private portHi = new Uint32Array(0);
  private portLo = new Uint32Array(0);
  private portsUsed = 0;

  /** The GUID's index, given at its first mention. */
  index(hi: number, lo: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hashOf(hi, lo) & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]! - 1;
      if (held < 0) return this.add(slot, hi, lo);
      if (this.hi[held] === hi && this.lo[held] === lo) return held;
    }
  }

  guid(index: number): string {
    return guidText(this.hi[index]!, this.lo[index]!);
  }

  /** The kind of the GUID's block; undefined while none was read. */
  kind(index: number): IbNodeKind | undefined {
    return KIND_OF_CODE[this.kinds[index]!];
  }

  kindCode(index: number): number {
    return this.kinds[index]!;
  }

  /** Records the GUID's block: its kind, and that its own port GUIDs come next. */
  setBlock(index: number, kind: IbNodeKind): void {
    this.kinds[index] = KIND_CODE[kind];
    this.portStart[index] = this.portsUsed;
  }

  /** Appends a port GUID to the block read last (`index`). */
  addPortGuid(index: number, hi: number, lo: number): void {
    const at = this.portsUsed++;
    this.portHi = grown(this.portHi, this.portsUsed);
    this.portLo = grown(this.portLo, this.portsUsed);
    this.portHi[at] = hi;
    this.portLo[at] = lo;
    this.portCount[index]!++;
  }

  portGuids(index: number): string[] {
    const from = this.portStart[index]!;
    return Array.from({ length: this.portCount[index]! }, (_, i) =>
      guidText(this.portHi[from + i]!, this.portLo[from + i]!),
    );
  }

  hasDescription(index: number): boolean {
    return this.descLength[index]! >= 0;
  }

  /** Sets the description to bytes[from, to) (a node is described once: the reader asks hasDescription first). */
  describe(index: number, bytes: Uint8Array, from: number, to: number): void {
    // What a name can show (model/fabric-names.ts), with room for a cut through a character: a description is at
    // most 64 bytes by the InfiniBand specification, and a longer one costs no more memory than that.
    const length = Math.min(to - from, DESCRIPTION_KEPT_BYTES);
    to = from + length;
    this.text = grown(this.text, this.textUsed + length);
    this.text.set(bytes.subarray(from, to), this.textUsed);
    this.descStart[index] = this.textUsed;
    this.descLength[index] = length;
    this.textUsed += length;
  }

  /** The description as printed (UTF-8), kept as a name (model/fabric-names.ts); '' when none was read. */
  description(index: number): string {
    const length = this.descLength[index]!;
    if (length <= 0) return '';
    const from = this.descStart[index]!;
    return fabricName(Buffer.from(this.text.buffer, this.text.byteOffset + from, length).toString('utf8'));
  }

  private add(slot: number, hi: number, lo: number): number {
    const index = this.size++;
    this.hi = grown(this.hi, this.size);
    this.lo = grown(this.lo, this.size);
    this.kinds = grown(this.kinds, this.size);
    this.descStart = grown(this.descStart, this.size);
    this.descLength = grown(this.descLength, this.size);
    this.portStart = grown(this.portStart, this.size);
    this.portCount = grown(this.portCount, this.size);
    this.hi[index] = hi;
    this.lo[index] = lo;
    this.descLength[index] = -1;
    this.slots[slot] = index + 1;
    if (this.size > this.slots.length * MAX_LOAD) this.rehash();
    return index;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    const mask = this.slots.length - 1;
    for (let index = 0; index < this.size; index++) {
      let slot = hashOf(this.hi[index]!, this.lo[index]!) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = index + 1;
    }
  }
}

/** Mixes both halves, so GUIDs that differ in a few low bits (a vendor's consecutive ones) spread over the table. */
function hashOf(hi: number, lo: number): number {
  const h = Math.imul(lo ^ Math.imul(hi, 0x27d4eb2d), 0x9e3779b1);
  return (h ^ (h >>> 15)) >>> 0;
}
