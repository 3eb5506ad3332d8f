// IP addresses and networks (CIDR) as bytes, for deciding whether an address
// lies in a network. An IPv4 address written as IPv6 (`::ffff:127.0.0.1`) is
// the IPv4 address: a check that looked only at its IPv6 form would let it
// reach what the IPv4 rule keeps out. Parsed here rather than with node:net,
// which the flags' validation would otherwise load on every start, --version
// included (tests/startup-modules.test.ts).

export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
}

export interface IpNetwork {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  readonly bits: number;
  /** As written, for messages. */
  readonly text: string;
}

/** The address `text` (IPv4, or IPv6 with an optional zone), IPv4-mapped IPv6 as IPv4; undefined if it is none. */
export function parseIp(text: string): IpAddress | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const v4 = ipv4Bytes(bare);
  if (v4) return { family: 4, bytes: v4 };
  const bytes = ipv6Bytes(bare);
  if (!bytes) return undefined;
  const mapped = bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? { family: 4, bytes: bytes.slice(12) } : { family: 6, bytes };
}

/** `10.0.0.0/8`, `fe80::/10`, or one address (a /32 or /128); undefined if `text` is none of them. */
export function parseNetwork(text: string): IpNetwork | undefined {
  const m = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(text.trim());
  if (!m) return undefined;
  const address = parseIp(m[1]!);
  if (!address) return undefined;
  // A mapped IPv6 network (`::ffff:127.0.0.0/104`) counts its bits over the IPv6 form.
  const mappedShift = address.family === 4 && m[1]!.includes(':') ? 96 : 0;
  const max = address.bytes.length * 8;
  const bits = m[2] === undefined ? max : Number(m[2]) - mappedShift;
  if (!(bits >= 0 && bits <= max)) return undefined;
  return { ...address, bits, text: text.trim() };
}

/** Whether `address` lies in `network` (never across families). */
export function inNetwork(address: IpAddress, network: IpNetwork): boolean {
  if (address.family !== network.family) return false;
  let bits = network.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((address.bytes[i]! & mask) !== (network.bytes[i]! & mask)) return false;
  }
  return true;
}

/** Whether the address written as `text` lies in one of `networks`. */
export function inNetworks(text: string, networks: readonly IpNetwork[]): boolean {
  const address = parseIp(text);
  return address !== undefined && networks.some((n) => inNetwork(address, n));
}

/** The 4 bytes of a dotted IPv4 address (decimal, no leading zeros), or undefined. */
function ipv4Bytes(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return undefined;
  return Uint8Array.from(parts.map(Number));
}

/** The 16 bytes of an IPv6 address (`::` expanded, a dotted IPv4 tail read), or undefined. */
function ipv6Bytes(text: string): Uint8Array | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const front = groupsOf(halves[0]!);
  const back = halves.length === 2 ? groupsOf(halves[1]!) : [];
  const words: number[] = [];
  const all = [...front, ...(halves.length === 2 ? ['::'] : []), ...back];
  let tail: Uint8Array | undefined;
  for (let i = 0; i < all.length; i++) {
    const g = all[i]!;
    if (g === '::') continue;
    if (i === all.length - 1 && g.includes('.')) {
      tail = ipv4Bytes(g);
      if (!tail) return undefined;
    } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) words.push(Number.parseInt(g, 16));
    else return undefined;
  }
  const given = words.length + (tail ? 2 : 0);
  if (halves.length === 2 ? given > 7 : given !== 8) return undefined;
  const bytes = new Uint8Array(16);
  const frontWords = front.filter((g) => !g.includes('.')).length;
  const put = (word: number, at: number) => {
    bytes[at * 2] = word >> 8;
    bytes[at * 2 + 1] = word & 0xff;
  };
  // Words before `::` from the start, the rest (and a dotted tail) against the end.
  words.slice(0, frontWords).forEach((w, i) => put(w, i));
  const backWords = words.slice(frontWords);
  const backStart = 8 - (tail ? 2 : 0) - backWords.length;
  backWords.forEach((w, i) => put(w, backStart + i));
  if (tail) bytes.set(tail, 12);
  return bytes;
}
