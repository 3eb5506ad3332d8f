// The two lines of ibnetdiscover's default format that carry the topology,
// read byte by byte into numbers: a node's header
// (`Switch	36 "S-<guid>"		# "<description>" …`) and a port line
// (`[N]` `[ext N]`? `(guid)`? then `"S-<guid>"[N]` `[ext N]`? `(guid)`? and
// `#` with the peer's description). ibdiagnet's copy of the fabric
// (`ibdiagnet2.ibnetdiscover`) writes the same lines with spaces for tabs and
// the port's label in parentheses after each port number: `[1](1/1/1)` on a
// Quantum-2 switch (ASIC/cage/port, `/split` on a split port), `[1](1)` or
// `[3](3/2)` on older Quantum, and on a CA the port number again before its
// GUID, `[1](1)(5c25730300e6706e)`. A large fabric prints ~10^6 of these
// lines, so a reader makes no object and no string per line: its fields are
// overwritten by each line it reads, and text is made only where a message
// needs it.

import { KIND_CODE, type IbNodeKind } from './ib-node-table.ts';

const QUOTE = 0x22;
const HASH = 0x23;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const DASH = 0x2d;
const SLASH = 0x2f;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** `[ext ` before an external port number (printed with -g only). */
const EXT = [0x5b, 0x65, 0x78, 0x74, 0x20];
/** The words that open a node's header, with the kind each names. */
const HEADER_WORDS: readonly { readonly bytes: readonly number[]; readonly word: string; readonly kind: IbNodeKind }[] =
  (
    [
      ['Switch', 'switch'],
      ['Ca', 'ca'],
      ['Rt', 'router'],
    ] as const
  ).map(([word, kind]) => ({ word, kind, bytes: [...word].map((c) => c.charCodeAt(0)) }));

/** The kind code of the letter before a GUID (`S-`, `H-`, `R-`), 0 for any other byte. */
function kindOfLetter(b: number | undefined): number {
  if (b === 0x53) return KIND_CODE.switch;
  if (b === 0x48) return KIND_CODE.ca;
  if (b === 0x52) return KIND_CODE.router;
  return 0;
}

/** Whether bytes[start, end) begin with `prefix`. */
export function startsWith(bytes: Uint8Array, start: number, end: number, prefix: ArrayLike<number>): boolean {
  if (end - start < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[start + i] !== prefix[i]) return false;
  return true;
}

/** The value of a hex digit byte, or -1. */
function hexDigit(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

/** What a parenthesis after a port number can be: its port's GUID (up to 16 hex digits), a label (digits and `/`). */
const GUID_GROUP = 1;
const LABEL_GROUP = 2;

/** A position in one line's bytes and the reading steps both lines share. */
class LineCursor {
  protected bytes: Uint8Array = new Uint8Array(0);
  protected i = 0;
  protected end = 0;
  /** The halves of the GUID read last. */
  protected hi = 0;
  protected lo = 0;

  protected begin(bytes: Uint8Array, start: number, end: number): void {
    this.bytes = bytes;
    this.i = start;
    this.end = end;
  }

  /** Whether the next byte is `b`; moves past it either way. */
  protected next(b: number): boolean {
    return this.i < this.end && this.bytes[this.i++] === b;
  }

  /** A decimal number, or -1 when there is none. */
  protected number(): number {
    const { bytes, end } = this;
    const from = this.i;
    let n = 0;
    while (this.i < end && bytes[this.i]! >= 0x30 && bytes[this.i]! <= 0x39) n = n * 10 + bytes[this.i++]! - 0x30;
    return this.i > from ? n : -1;
  }

  /** Up to 16 hex digits into hi and lo (the upper and lower 32 bits, exact in doubles). */
  protected guid(): boolean {
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

  /**
   * A parenthesis: what it can be (GUID_GROUP, LABEL_GROUP, both for a decimal number, 0 for neither or no
   * parenthesis), its digits as a GUID in hi and lo when it can be one.
   */
  protected group(): number {
    const { bytes, end } = this;
    if (!this.next(OPEN_PAREN)) return 0;
    const from = this.i;
    let hi = 0;
    let lo = 0;
    let slashes = 0;
    let decimal = true;
    for (; this.i < end && bytes[this.i] !== CLOSE_PAREN; this.i++) {
      const b = bytes[this.i]!;
      if (b === SLASH) {
        slashes++;
        continue;
      }
      const d = hexDigit(b);
      if (d < 0) return 0;
      if (b > 0x39) decimal = false;
      hi = hi * 16 + Math.floor(lo / 2 ** 28);
      lo = (lo % 2 ** 28) * 16 + d;
    }
    const length = this.i - from;
    if (length === 0 || !this.next(CLOSE_PAREN)) return 0;
    this.hi = hi;
    this.lo = lo;
    return (slashes === 0 && length <= 16 ? GUID_GROUP : 0) | (decimal ? LABEL_GROUP : 0);
  }

  /** Spaces and tabs; with `any`, every ASCII white space (what `\s` matches in a header). */
  protected blanks(any = false): number {
    const { bytes, end } = this;
    const from = this.i;
    while (
      this.i < end &&
      (bytes[this.i] === 0x20 || bytes[this.i] === 0x09 || (any && bytes[this.i]! >= 0x0a && bytes[this.i]! <= 0x0d))
    )
      this.i++;
    return this.i - from;
  }
}

export class PortLineReader extends LineCursor {
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

  /**
   * Reads bytes[start, end); false when it is no port line. With `labelled` (a switch's port, which ibnetdiscover
   * prints without a GUID, or any port of ibdiagnet's copy), a lone parenthesis after the port number is its label;
   * otherwise it is the port's GUID unless it holds a `/`.
   */
  read(bytes: Uint8Array, start: number, end: number, labelled: boolean): boolean {
    this.begin(bytes, start, end);
    if (!this.next(OPEN_BRACKET)) return false;
    this.port = this.number();
    if (this.port < 0 || !this.next(CLOSE_BRACKET) || !this.ext()) return false;
    this.ownGuid = false;
    if (bytes[this.i] === OPEN_PAREN) {
      const first = this.group();
      if (bytes[this.i] === OPEN_PAREN) {
        // ibdiagnet's CA port: the label, then the GUID.
        if (!(first & LABEL_GROUP) || !(this.group() & GUID_GROUP)) return false;
        this.ownGuid = true;
      } else if (first & GUID_GROUP && !(labelled && first & LABEL_GROUP)) this.ownGuid = true;
      else if (!(first & LABEL_GROUP)) return false;
      this.ownHi = this.hi;
      this.ownLo = this.lo;
    }
    if (this.blanks() === 0 || !this.next(QUOTE)) return false;
    this.peerKind = kindOfLetter(bytes[this.i++]);
    if (this.peerKind === 0 || !this.next(DASH) || !this.guid() || !this.next(QUOTE) || !this.next(OPEN_BRACKET))
      return false;
    this.peerHi = this.hi;
    this.peerLo = this.lo;
    this.peerPort = this.number();
    if (this.peerPort < 0 || !this.next(CLOSE_BRACKET) || !this.ext()) return false;
    this.blanks();
    // The peer port's GUID, its label, or both: nothing the topology needs.
    for (let groups = 0; groups < 2 && bytes[this.i] === OPEN_PAREN; groups++) {
      if (this.group() === 0) return false;
      this.blanks();
    }
    this.hash = this.i;
    return this.i < end && bytes[this.i] === HASH;
  }

  /** An optional `[ext N]`. */
  private ext(): boolean {
    const { bytes } = this;
    if (bytes[this.i] !== OPEN_BRACKET || bytes[this.i + 1] !== EXT[1]) return true;
    for (const b of EXT) if (!this.next(b)) return false;
    return this.number() >= 0 && this.next(CLOSE_BRACKET);
  }
}

/**
 * Reads `Switch|Ca|Rt <ports> "<letter>-<guid>" # "<description>"…`, the description running to the line's last quote.
 */
export class HeaderLineReader extends LineCursor {
  /** The word that opens the header, and the kind it names. */
  word = '';
  kind: IbNodeKind = 'switch';
  /** The letter before the GUID, as a byte, and the kind it names (0: none). */
  letter = 0;
  letterKind = 0;
  guidHi = 0;
  guidLo = 0;
  /** The description is bytes[descFrom, descTo). */
  descFrom = 0;
  descTo = 0;

  /** Reads bytes[start, end); false when it is no header. */
  read(bytes: Uint8Array, start: number, end: number): boolean {
    this.begin(bytes, start, end);
    let opening: (typeof HEADER_WORDS)[number] | undefined;
    for (const w of HEADER_WORDS) if (startsWith(bytes, start, end, w.bytes)) opening = w;
    if (!opening) return false;
    this.word = opening.word;
    this.kind = opening.kind;
    this.i += opening.bytes.length;
    if (this.blanks(true) === 0 || this.number() < 0 || this.blanks(true) === 0 || !this.next(QUOTE)) return false;
    this.letter = bytes[this.i++] ?? 0;
    this.letterKind = kindOfLetter(this.letter);
    if (this.letterKind === 0 || !this.next(DASH) || !this.guid() || !this.next(QUOTE)) return false;
    this.guidHi = this.hi;
    this.guidLo = this.lo;
    this.blanks(true);
    if (!this.next(HASH)) return false;
    this.blanks(true);
    if (!this.next(QUOTE)) return false;
    this.descFrom = this.i;
    let close = end - 1;
    while (close >= this.i && bytes[close] !== QUOTE) close--;
    this.descTo = close;
    return close >= this.i;
  }
}

/**
 * The quoted description after the `#` at `hash` in bytes[hash, end): from the first quote to the last, or undefined.
 */
export function quotedAfter(bytes: Uint8Array, hash: number, end: number): { from: number; to: number } | undefined {
  let open = hash;
  while (open < end && bytes[open] !== QUOTE) open++;
  let close = end - 1;
  while (close > open && bytes[close] !== QUOTE) close--;
  return close > open ? { from: open + 1, to: close } : undefined;
}
