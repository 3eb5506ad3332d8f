// Where a URL that the discovery ConfigMap names may lead (the graph source's
// config.url, the UFM endpoints): not to the controller's own host (loopback),
// not to link-local addresses, not to a cloud's metadata service, unless the
// operator allows that network with --allow-url-cidr. A metadata service
// answers the node's cloud credentials to whoever asks from the node, and a
// loopback port is often an unauthenticated admin or debug endpoint; the
// ConfigMap's writer must not be able to make the controller ask them.
//
// The address checked is the one connected to: a name is resolved here, each
// of its addresses checked, and only the checked addresses are handed to the
// connection (the `lookup` of http.request), so a name that resolves to
// 127.0.0.1, a redirect to 169.254.169.254 and an IPv4-mapped IPv6 literal are
// all refused before any connection is made.

import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns';
import { inNetwork, parseIp, parseNetwork, type IpAddress, type IpNetwork } from '../../../util/ip-networks.ts';
import { safeFragment } from '../../../util/input-fragment.ts';
import { URL_CIDR_FLAG } from '../../model/input-policy.ts';

/** The networks refused unless allowed, each with what it is for the message. */
const REFUSED: readonly { readonly network: IpNetwork; readonly what: string }[] = [
  ['127.0.0.0/8', 'a loopback address'],
  // Connecting to 0.0.0.0 or :: reaches the host itself.
  ['0.0.0.0/8', 'an address of this host'],
  ['::/128', 'an address of this host'],
  ['::1/128', 'a loopback address'],
  // 169.254.169.254 (AWS, GCP, Azure, OpenStack), 169.254.170.2 (ECS) and every other link-local address.
  ['169.254.0.0/16', 'a link-local address (cloud metadata services answer there)'],
  ['fe80::/10', 'a link-local address'],
  ['fd00:ec2::254/128', 'a cloud metadata address'],
  ['100.100.100.200/32', 'a cloud metadata address'],
  ['192.0.0.192/32', 'a cloud metadata address'],
].map(([cidr, what]) => ({ network: parseNetwork(cidr!)!, what: what! }));

/** Host names of cloud metadata services, refused whatever they resolve to (unless to an allowed network). */
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);

const METADATA_ADDRESS = parseIp('169.254.169.254')!;
const LOOPBACK = parseIp('127.0.0.1')!;

/** Every address, IPv4 and IPv6: where no configured URL is asked, no address is refused. */
const EVERYWHERE = ['0.0.0.0/0', '::/0'];

/** The networks the operator allows (--allow-url-cidr), parsed once. */
export class UrlAddressPolicy {
  private readonly allowed: readonly IpNetwork[];

  /** `cidrs` were checked when the flags were read; one that does not parse allows nothing. Undefined: all. */
  constructor(cidrs: readonly string[] | undefined) {
    this.allowed = (cidrs ?? EVERYWHERE).map((c) => parseNetwork(c)).filter((n) => n !== undefined);
  }

  /**
   * Why `host` (a URL's host name or literal address) may not be asked before anything is resolved, or undefined:
   * a literal address in a refused network, a metadata or `localhost` name.
   */
  refusedHost(host: string): string | undefined {
    const name = host.toLowerCase().replace(/\.$/, '');
    const literal = parseIp(name);
    if (literal) return this.refusedAddress(literal, name);
    // A name refused before it resolves is judged by where it leads anyway.
    if (METADATA_NAMES.has(name) && this.refusedAddress(METADATA_ADDRESS, name))
      return `${safeFragment(name)} is a cloud metadata service's name; ${this.howToAllow()}`;
    if ((name === 'localhost' || name.endsWith('.localhost')) && this.refusedAddress(LOOPBACK, name))
      return `${safeFragment(name)} is this host (loopback); ${this.howToAllow()}`;
    return undefined;
  }

  /** Why `address` (resolved from `host`) may not be connected to, or undefined. */
  refusedAddress(address: IpAddress, host: string, text = host): string | undefined {
    if (this.allowed.some((n) => inNetwork(address, n))) return undefined;
    const hit = REFUSED.find((r) => inNetwork(address, r.network));
    const metadataName = METADATA_NAMES.has(host.toLowerCase().replace(/\.$/, ''));
    if (!hit && !metadataName) return undefined;
    const target = text === host ? safeFragment(host) : `${safeFragment(host)} resolves to ${text}, which`;
    return `${target} is ${hit?.what ?? "a cloud metadata service's address"}; ${this.howToAllow()}`;
  }

  /**
   * A `lookup` for http.request: resolves `host`, refuses it when any of its addresses is refused, and hands on only
   * checked addresses, so the connection goes to an address that was checked.
   */
  readonly lookup = (
    host: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(host, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '');
      for (const a of addresses) {
        const parsed = parseIp(a.address);
        const why = parsed && this.refusedAddress(parsed, host, a.address);
        if (why) return callback(new UrlRefusedError(why), options.all ? [] : '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first)
        return callback(Object.assign(new Error(`no address for ${safeFragment(host)}`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };

  private howToAllow(): string {
    return `the controller asks loopback, link-local and cloud metadata addresses only in networks the operator allows with --${URL_CIDR_FLAG}`;
  }
}

/** A URL, or an address it resolved to, that the policy refuses. */
export class UrlRefusedError extends Error {
  override readonly name = 'UrlRefusedError';
  readonly code = 'EURLREFUSED';
}
