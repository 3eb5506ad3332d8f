// IP addresses and networks (CIDR) as bytes, for deciding whether an address
// lies in a network. An IPv4 address written as IPv6 (`::ffff:127.0.0.1`) is
// the IPv4 address: a check that looked only at its IPv6 form would let it
// reach what the IPv4 rule keeps out.

import { isIP } from 'node:net';

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
  const family = isIP(bare);
  if (family === 4) return { family: 4, bytes: Uint8Array.from(bare.split('.').map(Number)) };
  if (family !== 6) return undefined;
  const bytes = ipv6Bytes(bare);
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

/** The 16 bytes of an IPv6 address that `isIP` accepted (`::` expanded, a dotted IPv4 tail read). */
function ipv6Bytes(text: string): Uint8Array {
  const bytes = new Uint8Array(16);
  let tail = text;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    bytes.set(v4[1]!.split('.').map(Number), 12);
    tail = `${text.slice(0, v4.index)}0:0`;
  }
  const [head, rest] = tail.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const front = groups(head);
  const back = rest === undefined ? [] : groups(rest);
  const all = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const lastGroups = v4 ? 6 : 8;
  for (let i = 0; i < lastGroups; i++) {
    bytes[i * 2] = all[i]! >> 8;
    bytes[i * 2 + 1] = all[i]! & 0xff;
  }
  return bytes;
}
