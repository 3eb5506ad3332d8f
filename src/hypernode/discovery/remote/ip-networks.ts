// IP networks written as text (`10.0.0.0/16`, `10.0.1.7`, `fd00::/64`) and
// whether an address lies inside one: the lldp crawl's `allow` list and the
// hosts a Secret lets its SNMP credentials go to share these rules. An
// address is one network of a single address (/32, /128). IPv4-mapped and
// other IPv6 forms of an IPv4 address are never inside an IPv4 network:
// addresses compare within their own family only.

import { isIPv4, isIPv6 } from 'node:net';

export interface IpNetwork {
  readonly family: 4 | 6;
  /** The network's address as a number of 32 or 128 bits. */
  readonly base: bigint;
  readonly bits: number;
}

const WIDTH = { 4: 32, 6: 128 } as const;

/** The IPv4 address as a 32-bit number, or undefined when `text` is none. */
function ipv4(text: string): bigint | undefined {
  if (!isIPv4(text)) return undefined;
  return text.split('.').reduce((a, p) => a * 256n + BigInt(p), 0n);
}

/** The IPv6 address as a 128-bit number (an IPv4 tail and `::` included), or undefined. */
function ipv6(text: string): bigint | undefined {
  if (!isIPv6(text) || text.includes('%')) return undefined;
  let groups = text;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const v4 = ipv4(tail[1]!)!;
    groups = `${text.slice(0, tail.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, rest] = groups.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? 0 : 8 - left.length - right.length;
  const all = [...left, ...Array<string>(zeros).fill('0'), ...right];
  return all.reduce((a, g) => a * 65536n + BigInt(`0x${g}`), 0n);
}

/** The address `text` (IPv4, or IPv6 without brackets) as a network of itself, or undefined. */
export function ipAddress(text: string): IpNetwork | undefined {
  const v4 = ipv4(text);
  if (v4 !== undefined) return { family: 4, base: v4, bits: 32 };
  const v6 = ipv6(text);
  return v6 === undefined ? undefined : { family: 6, base: v6, bits: 128 };
}

/** `addr/bits` or a bare address; undefined when `text` is neither. */
export function parseIpNetwork(text: string): IpNetwork | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return ipAddress(text);
  const address = ipAddress(text.slice(0, slash));
  const bitsText = text.slice(slash + 1);
  if (!address || !/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  return bits <= WIDTH[address.family] ? { ...address, bits } : undefined;
}

/** Whether the network holds the address (both of one family). */
export function networkHolds(network: IpNetwork, address: IpNetwork): boolean {
  if (network.family !== address.family) return false;
  const shift = BigInt(WIDTH[network.family] - network.bits);
  return network.base >> shift === address.base >> shift;
}

/** Whether `address` (text) lies in one of `networks`. */
export function inNetworks(address: string, networks: readonly IpNetwork[]): boolean {
  const ip = ipAddress(address);
  return ip !== undefined && networks.some((n) => networkHolds(n, ip));
}

/** The network as written (`10.0.0.0/16`, `fd00:0:0:0:0:0:0:0/64`), for messages. */
export function formatIpNetwork(n: IpNetwork): string {
  const parts =
    n.family === 4
      ? [24n, 16n, 8n, 0n].map((s) => String((n.base >> s) & 255n)).join('.')
      : Array.from({ length: 8 }, (_, i) => ((n.base >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
  return `${parts}/${n.bits}`;
}
