// One port line of ibnetdiscover's default format, read byte by byte into
// numbers: `[N]` `[ext N]`? `(guid)`? then `"S-guid"[N]` `[ext N]`? `(guid)`?
// and `#` with the peer's description and link details. A large fabric prints
// hundreds of thousands of them, so the reader makes no object and no string
// per line: its fields are overwritten by each line it reads.

import { KIND_CODE } from './ib-node-table.ts';

const QUOTE = 0x22;
const HASH = 0x23;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const DASH = 0x2d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** `[ext ` before an external port number (printed with -g only). */
const EXT = [0x5b, 0x65, 0x78, 0x74, 0x20];

/** The kind code of the letter before a peer's GUID (`S-`, `H-`, `R-`), 0 for any other byte. */
function kindOfLetter(b: number | undefined): number {
  if (b === 0x53) return KIND_CODE.switch;
  if (b === 0x48) return KIND_CODE.ca;
  if (b === 0x52) return KIND_CODE.router;
  return 0;
}

/** The value of a hex digit byte, or -1. */
function hexDigit(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

export class PortLineReader {
  port = 0;
  /** Whether the line prints the node's own port GUID (CAs and routers do), in ownHi and ownLo. */
  ownGuid = false;
  ownHi = 0;
  ownLo = 0;
  /** The peer's kind code (KIND_CODE), GUID halves and port. */
  peerKind = 0;
  peerHi = 0;
  peerLo = 0;
  peerPort = 0;
  /** Where the `#` before the peer's description is. */
  hash = 0;
  private bytes: Uint8Array = new Uint8Array(0);
  private i = 0;
  private end = 0;
  private hi = 0;
  private lo = 0;

  /** Reads bytes[start, end); false when it is no port line. */
  read(bytes: Uint8Array, start: number, end: number): boolean {
    this.bytes = bytes;
    this.i = start;
    this.end = end;
    if (bytes[this.i++] !== OPEN_BRACKET) return false;
    this.port = this.number();
    if (this.port < 0 || bytes[this.i++] !== CLOSE_BRACKET || !this.ext()) return false;
    this.ownGuid = bytes[this.i] === OPEN_PAREN;
    if (this.ownGuid) {
      this.i++;
      if (!this.guid() || bytes[this.i++] !== CLOSE_PAREN) return false;
      this.ownHi = this.hi;
      this.ownLo = this.lo;
    }
    const before = this.i;
    this.blanks();
    if (this.i === before || bytes[this.i++] !== QUOTE) return false;
    this.peerKind = kindOfLetter(bytes[this.i++]);
    if (this.peerKind === 0 || bytes[this.i++] !== DASH || !this.guid() || bytes[this.i++] !== QUOTE || bytes[this.i++] !== OPEN_BRACKET) return false;
    this.peerHi = this.hi;
    this.peerLo = this.lo;
    this.peerPort = this.number();
    if (this.peerPort < 0 || bytes[this.i++] !== CLOSE_BRACKET || !this.ext()) return false;
    this.blanks();
    if (bytes[this.i] === OPEN_PAREN) {
      this.i++;
      if (!this.guid() || bytes[this.i++] !== CLOSE_PAREN) return false;
      this.blanks();
    }
    this.hash = this.i;
    return this.i < end && bytes[this.i] === HASH;
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
    return this.i > from && !(this.i < end && hexDigit(bytes[this.i]!) >= 0);
  }

  /** An optional `[ext N]`. */
  private ext(): boolean {
    const { bytes } = this;
    if (bytes[this.i] !== OPEN_BRACKET || bytes[this.i + 1] !== EXT[1]) return true;
    for (const b of EXT) if (bytes[this.i++] !== b) return false;
    return this.number() >= 0 && bytes[this.i++] === CLOSE_BRACKET;
  }

  private blanks(): void {
    const { bytes, end } = this;
    while (this.i < end && (bytes[this.i] === 0x20 || bytes[this.i] === 0x09)) this.i++;
  }
}

/** The quoted description after the `#` at `hash` in bytes[hash, end): from the first quote to the last, or undefined. */
export function quotedAfter(bytes: Uint8Array, hash: number, end: number): { from: number; to: number } | undefined {
  let open = hash;
  while (open < end && bytes[open] !== QUOTE) open++;
  let close = end - 1;
  while (close > open && bytes[close] !== QUOTE) close--;
  return close > open ? { from: open + 1, to: close } : undefined;
}
