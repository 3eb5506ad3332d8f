// `host:port` resolution as Go's net.ResolveTCPAddr("tcp", …) does it, for
// validating --healthz-address and --listen-address before anything starts
// (as options.go CheckOptionOrDie does). Mirrors Go's src/net/ipsock.go (SplitHostPort,
// internetAddrList, forResolve), port.go (parsePort), lookup.go (LookupPort)
// and net.go (AddrError text: `address <addr>: <why>`).

import { lookupTcpService } from './services.ts';
import { errorMessage } from '../../util/error-message.ts';

export interface TcpAddress {
  /** The resolved IP; undefined for an empty host (all interfaces). */
  readonly ip: string | undefined;
  readonly port: number;
}

export interface ResolverDeps {
  /** Host name → addresses, like dns.lookup(host, { all: true }). */
  lookupHost(host: string): Promise<readonly { address: string; family: number }[]>;
  /** Service name (already lower-cased) → TCP port, like /etc/services. */
  lookupService(name: string): number | undefined;
}

// node:net and node:dns are loaded on first use: loading node:net alone costs
// about 3 ms, a tenth of the whole start-up of --version.
export const systemResolver: ResolverDeps = {
  lookupHost: async (host) => (await import('node:dns/promises')).lookup(host, { all: true }),
  lookupService: lookupTcpService,
};

/** Go's net.AddrError / DNSError: the message is the resolver text that follows `invalid …-address: `. */
export class AddressError extends Error {
  override name = 'AddressError';
}

function addrError(address: string, why: string): AddressError {
  return new AddressError(`address ${address}: ${why}`);
}

/** net.SplitHostPort. */
export function splitHostPort(hostport: string): { host: string; port: string } {
  const colon = hostport.lastIndexOf(':');
  if (colon < 0) throw addrError(hostport, 'missing port in address');
  let host: string;
  let afterOpen = 0;
  let afterClose = 0;
  if (hostport[0] === '[') {
    const close = hostport.indexOf(']');
    if (close < 0) throw addrError(hostport, "missing ']' in address");
    if (close + 1 === hostport.length) throw addrError(hostport, 'missing port in address');
    if (close + 1 !== colon) {
      throw addrError(hostport, hostport[close + 1] === ':' ? 'too many colons in address' : 'missing port in address');
    }
    host = hostport.slice(1, close);
    afterOpen = 1;
    afterClose = close + 1;
  } else {
    host = hostport.slice(0, colon);
    if (host.includes(':')) throw addrError(hostport, 'too many colons in address');
  }
  if (hostport.indexOf('[', afterOpen) >= 0) throw addrError(hostport, "unexpected '[' in address");
  if (hostport.indexOf(']', afterClose) >= 0) throw addrError(hostport, "unexpected ']' in address");
  return { host, port: hostport.slice(colon + 1) };
}

/** net.LookupPort("tcp", …): a decimal port 0–65535 or a service name. */
export function lookupPort(service: string, deps: Pick<ResolverDeps, 'lookupService'> = systemResolver): number {
  let port: number;
  if (/^[+-]?[0-9]*$/.test(service)) {
    // Go's parsePort clamps huge numbers instead of overflowing, so they fail the range check below.
    port = Math.max(-(2 ** 30), Math.min(2 ** 30 - 1, Number(service.replace(/^[+-]$/, '0'))));
  } else {
    // Go's service table lookup is case-insensitive and refuses names longer than its 25-byte buffer.
    const found = service.length <= 25 ? deps.lookupService(service.toLowerCase()) : undefined;
    if (found === undefined) throw addrError(`tcp/${service}`, 'unknown port');
    port = found;
  }
  if (port < 0 || port > 65535) throw addrError(service, 'invalid port');
  return port;
}

/** net.ResolveTCPAddr("tcp", address). Rejects with an AddressError carrying Go's text. */
export async function resolveTcpAddress(address: string, deps: ResolverDeps = systemResolver): Promise<TcpAddress> {
  if (address === '') return { ip: undefined, port: 0 };
  const { host, port: service } = splitHostPort(address);
  const port = lookupPort(service, deps);
  if (host === '') return { ip: undefined, port };
  const { isIP } = await import('node:net');
  if (isIP(host)) return { ip: host, port };
  let found: readonly { address: string; family: number }[];
  try {
    found = await deps.lookupHost(host);
  } catch (err) {
    throw new AddressError(`lookup ${host}: ${describeLookupFailure(err)}`);
  }
  if (found.length === 0) throw new AddressError(`lookup ${host}: no such host`);
  // Go's forResolve: the first IPv4 address, or the first IPv6 one when the host was bracketed.
  const wanted = address.includes('[') ? 6 : 4;
  const chosen = found.find((a) => a.family === wanted) ?? found[0]!;
  return { ip: chosen.address, port };
}

function describeLookupFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'EAI_NONAME') return 'no such host';
  if (code === 'EAI_AGAIN') return 'temporary failure in name resolution';
  return errorMessage(err);
}

/**
 * Two listeners collide when their ports are equal and either listens on all
 * interfaces or both name the same IP (options.go's conflict check).
 */
export function tcpAddressesConflict(a: TcpAddress, b: TcpAddress): boolean {
  if (a.port !== b.port) return false;
  const ipA = a.ip === undefined ? undefined : ipBytes(a.ip);
  const ipB = b.ip === undefined ? undefined : ipBytes(b.ip);
  if (ipA === undefined || ipB === undefined || isUnspecified(ipA) || isUnspecified(ipB)) return true;
  return ipA.every((byte, i) => byte === ipB[i]);
}

/**
 * A valid IP in Go's 16-byte form (IPv4 as ::ffff:a.b.c.d), so v4 and
 * v4-mapped v6 compare equal; zones ignored.
 */
export function ipBytes(ip: string): Uint8Array {
  const bytes = new Uint8Array(16);
  const bare = ip.replace(/%.*$/, '');
  if (!bare.includes(':')) {
    bytes[10] = 0xff;
    bytes[11] = 0xff;
    bytes.set(bare.split('.').map(Number), 12);
    return bytes;
  }
  let text = bare;
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail) {
    const [a, b, c, d] = v4Tail[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, v4Tail.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  all.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  return bytes;
}

function isUnspecified(ip: Uint8Array): boolean {
  const v4Zero = ip.slice(0, 12).every((b, i) => b === (i >= 10 ? 0xff : 0)) && ip.slice(12).every((b) => b === 0);
  return v4Zero || ip.every((b) => b === 0);
}
