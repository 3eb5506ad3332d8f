// What a Secret lets the controller do with its credentials. Whoever may edit
// the discovery ConfigMap chooses a source's secretRef and its endpoint or
// switches; only the Secret's own metadata may say where its token, password,
// community or keys go (docs/security.md §2). A Secret is used when it carries
// DISCOVERY_CREDENTIALS_LABEL=true and names its destinations: URL origins in
// ALLOWED_ENDPOINTS_ANNOTATION (ufm, graph), SNMP agents in
// ALLOWED_HOSTS_ANNOTATION (lldp). Plain http and skipped TLS verification need
// one more annotation each. Every refusal names the Secret, the destination,
// and the kubectl command that would allow it; it is decided before anything
// is sent. No Go counterpart: Go's UFM source sends any Secret anywhere.

import type { SecretClient } from '../../model/contracts.ts';
import type { Secret } from '../../model/hypernode-types.ts';
import {
  ALLOW_INSECURE_SKIP_VERIFY_ANNOTATION,
  ALLOW_PLAIN_HTTP_ANNOTATION,
  ALLOWED_ENDPOINTS_ANNOTATION,
  ALLOWED_HOSTS_ANNOTATION,
  DISCOVERY_CREDENTIALS_LABEL,
} from '../../model/hypernode-labels.ts';
import { labelValue } from '../../model/label-reads.ts';
import { wrapError } from '../../../util/error-message.ts';
import { firstFew } from '../../../util/first-few.ts';
import { redactUrl } from '../../../util/redact-url.ts';
import { truncateText } from '../../../util/truncate.ts';
import { inNetwork, parseIp, parseNetwork, type IpNetwork } from '../../../util/ip-networks.ts';

/** Where a Secret is read from, as a secretRef names it. */
export interface SecretRef {
  readonly name: string;
  readonly namespace: string;
}

/** How long one Secret GET may take (Go has no limit; a hung call must not stall discovery). */
export const SECRET_TIMEOUT_MS = 30_000;

/** An HTTP(S) endpoint the credentials would be sent to. */
export interface HttpDestination {
  readonly url: string;
  readonly insecureSkipVerify: boolean;
}

/** What one annotation holds: the Secret's consent to one kind of destination. */
interface DestinationKind {
  readonly annotation: string;
  /** How the destinations are called in messages. */
  readonly noun: string;
}
const ENDPOINTS: DestinationKind = { annotation: ALLOWED_ENDPOINTS_ANNOTATION, noun: 'endpoint' };
const HOSTS: DestinationKind = { annotation: ALLOWED_HOSTS_ANNOTATION, noun: 'SNMP agent' };

/** A host entry: an address or network, or a DNS name compared without case. */
type HostEntry = { readonly network: IpNetwork } | { readonly name: string };

/** Destinations shown in one message before `and N more`. */
const SHOWN = 8;
/** Bytes of a malformed annotation entry quoted in its error. */
const ENTRY_QUOTE_BYTES = 48;

const secretName = (ref: SecretRef) => `${ref.namespace}/${ref.name}`;
const kubectl = (ref: SecretRef, verb: string) => `kubectl -n ${ref.namespace} ${verb} secret ${ref.name}`;

/** The URL origin (`https://host[:port]`) of `url`; the scheme defaults to https as the sources' endpoints do. */
export function urlOrigin(url: string): string {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`).origin;
  } catch {
    throw new Error(`${JSON.stringify(truncateText(redactUrl(url), ENTRY_QUOTE_BYTES))} is not a URL; nothing is sent`);
  }
}

/** The values of a comma- or space-separated annotation. */
function listOf(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter((v) => v !== '');
}

function malformed(ref: SecretRef, kind: DestinationKind, index: number, entry: string, want: string): Error {
  const quoted = JSON.stringify(truncateText(entry, ENTRY_QUOTE_BYTES));
  return new Error(
    `Secret ${secretName(ref)}: entry ${index + 1} of its annotation ${kind.annotation} (${quoted}) is not ${want}; fix the annotation`,
  );
}

function endpointEntries(ref: SecretRef, value: string | undefined): string[] {
  return listOf(value).map((entry, i) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    const originOnly =
      url !== undefined &&
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      url.username === '' &&
      url.password === '' &&
      (url.pathname === '/' || url.pathname === '') &&
      url.search === '' &&
      url.hash === '';
    if (!originOnly) throw malformed(ref, ENDPOINTS, i, entry, 'a URL origin such as https://ufm.example.com:8443');
    return url!.origin;
  });
}

const DNS_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function hostEntries(ref: SecretRef, value: string | undefined): HostEntry[] {
  return listOf(value).map((entry, i) => {
    const network = parseNetwork(entry);
    if (network) return { network };
    const name = entry.toLowerCase().replace(/\.$/, '');
    if (DNS_NAME.test(name) && !/^[\d.]+$/.test(name)) return { name };
    throw malformed(ref, HOSTS, i, entry, 'an IP address, a network such as 10.0.0.0/16, or a host name');
  });
}

/** What a Secret allows, read once from its metadata by `SecretGrant.of`. */
export class SecretGrant {
  private constructor(
    readonly ref: SecretRef,
    private readonly annotations: Readonly<Record<string, string>>,
    /** The URL origins its credentials may be sent to (for a source that `needs` endpoints). */
    private readonly allowedEndpoints: readonly string[],
    /** The SNMP agents they may go to (for a source that `needs` hosts), asked about every address a crawl learns. */
    private readonly allowedHosts: readonly HostEntry[],
  ) {}

  /**
   * The Secret's grant when it is marked for discovery and names destinations
   * of the kind the source `needs`; otherwise an error saying what to add, with
   * `destinations` (what the source would reach) in the command. A malformed
   * entry is refused whole, so a typo never silently narrows or widens what
   * is allowed.
   */
  static of(
    secret: Secret,
    ref: SecretRef,
    needs: 'endpoints' | 'hosts',
    destinations: readonly string[],
  ): SecretGrant {
    const kind = needs === 'endpoints' ? ENDPOINTS : HOSTS;
    const labels = secret.metadata.labels;
    const annotations = secret.metadata.annotations ?? {};
    const named = labelValue(annotations, kind.annotation);
    const marked = labelValue(labels, DISCOVERY_CREDENTIALS_LABEL) === 'true';
    if (!marked || named === undefined || listOf(named).length === 0) {
      const where = destinations.length > 0 ? ` to ${describe(kind, destinations)}` : '';
      const steps = [
        ...(marked ? [] : [`${kubectl(ref, 'label')} ${DISCOVERY_CREDENTIALS_LABEL}=true`]),
        `${kubectl(ref, 'annotate --overwrite')} ${kind.annotation}=${suggested(destinations, kind)}`,
      ];
      const lacks = marked
        ? `names no ${kind.noun} in its annotation ${kind.annotation}`
        : `is not labelled ${DISCOVERY_CREDENTIALS_LABEL}=true`;
      throw new Error(
        `Secret ${secretName(ref)} ${lacks}, so its credentials are not sent${where}: the controller uses a Secret only when it is labelled for discovery and names where it may be sent; if this Secret is meant for it: ${steps.join(' && ')}`,
      );
    }
    return new SecretGrant(
      ref,
      annotations,
      needs === 'endpoints' ? endpointEntries(ref, named) : [],
      needs === 'hosts' ? hostEntries(ref, named) : [],
    );
  }

  private consents(annotation: string): boolean {
    return labelValue(this.annotations, annotation) === 'true';
  }

  /**
   * Throws, naming the Secret, the endpoint and what to add, unless the Secret
   * lets its credentials go to `to`: its origin listed, plain http and
   * skipped verification each consented to.
   */
  checkEndpoint(to: HttpDestination): void {
    const origin = urlOrigin(to.url);
    const allowed = this.allowedEndpoints;
    if (!allowed.includes(origin)) {
      throw new Error(
        `Secret ${secretName(this.ref)} does not name the endpoint ${origin} in its annotation ${ALLOWED_ENDPOINTS_ANNOTATION} (it names ${firstFew(allowed, SHOWN)}), so its credentials are not sent there; if that endpoint is meant: ${kubectl(this.ref, 'annotate --overwrite')} ${ALLOWED_ENDPOINTS_ANNOTATION}=${[...allowed, origin].join(',')}`,
      );
    }
    if (origin.startsWith('http://') && !this.consents(ALLOW_PLAIN_HTTP_ANNOTATION)) {
      throw new Error(
        `the endpoint ${origin} is plain http, so the credentials of Secret ${secretName(this.ref)} would cross the network unencrypted; they are not sent: use an https:// endpoint, or, on a network you trust, consent on the Secret: ${kubectl(this.ref, 'annotate')} ${ALLOW_PLAIN_HTTP_ANNOTATION}=true`,
      );
    }
    if (
      to.insecureSkipVerify &&
      origin.startsWith('https://') &&
      !this.consents(ALLOW_INSECURE_SKIP_VERIFY_ANNOTATION)
    ) {
      throw new Error(
        `config.insecureSkipVerify turns TLS verification off for ${origin}, so any server answering there would receive the credentials of Secret ${secretName(this.ref)}; they are not sent: put the server's CA under the Secret's key ca.crt and drop insecureSkipVerify, or consent on the Secret: ${kubectl(this.ref, 'annotate')} ${ALLOW_INSECURE_SKIP_VERIFY_ANNOTATION}=true`,
      );
    }
  }

  /** Whether the Secret names the SNMP agent `host` (an address, or the name as written). */
  allowsHost(host: string): boolean {
    const ip = parseIp(host);
    const name = host.toLowerCase().replace(/\.$/, '');
    return this.allowedHosts.some((e) =>
      'network' in e ? ip !== undefined && inNetwork(ip, e.network) : e.name === name,
    );
  }

  /** Throws, naming the Secret and the agents it does not name, unless it names every one of `hosts`. */
  checkHosts(hosts: readonly string[]): void {
    const refused = [...new Set(hosts.filter((h) => !this.allowsHost(h)))];
    if (refused.length > 0) throw new Error(this.hostsRefusal(refused));
  }

  /** Why the credentials do not go to `refused`, and the command that would let them. */
  hostsRefusal(refused: readonly string[]): string {
    const named = listOf(labelValue(this.annotations, ALLOWED_HOSTS_ANNOTATION));
    return `Secret ${secretName(this.ref)} does not name ${describe(HOSTS, refused)} in its annotation ${ALLOWED_HOSTS_ANNOTATION} (it names ${firstFew(named, SHOWN)}), so its credentials are not sent there; if they are switches of this fabric: ${kubectl(this.ref, 'annotate --overwrite')} ${ALLOWED_HOSTS_ANNOTATION}=${suggested([...named, ...refused], HOSTS)}`;
  }
}

/** `the endpoint X`, `the SNMP agents a, b and 3 more`. */
function describe(kind: DestinationKind, destinations: readonly string[]): string {
  const [one] = destinations;
  if (destinations.length === 1) return `the ${kind.noun} ${one}`;
  return `the ${kind.noun}s ${firstFew(destinations, SHOWN)}`;
}

/** The annotation value to paste: the destinations, or a placeholder when there are too many to list. */
function suggested(destinations: readonly string[], kind: DestinationKind): string {
  if (destinations.length === 0)
    return kind === ENDPOINTS ? 'https://<host>:<port>' : '<addresses, networks or host names>';
  if (destinations.length <= SHOWN) return [...new Set(destinations)].join(',');
  return `${destinations.slice(0, SHOWN).join(',')},…${kind === HOSTS ? ' (or their network, e.g. 10.0.0.0/16)' : ''}`;
}

/**
 * The Secret `ref` names, with what it grants for `needs` (the destinations
 * the source would reach named in a refusal). Refuses, before any request, a
 * Secret outside the controller's namespace (`secrets.namespace`); the GET
 * takes at most SECRET_TIMEOUT_MS and its error names the Secret.
 */
export async function readGrantedSecret(
  secrets: SecretClient,
  ref: SecretRef,
  needs: 'endpoints' | 'hosts',
  destinations: readonly string[],
  signal?: AbortSignal,
): Promise<{ readonly data: Readonly<Record<string, string>> | undefined; readonly grant: SecretGrant }> {
  if (ref.namespace !== secrets.namespace) {
    throw new Error(
      `secretRef names Secret ${secretName(ref)}, outside the controller's namespace ${secrets.namespace}: Secrets are read from that namespace only; create the Secret there and set secretRef.namespace: ${secrets.namespace}`,
    );
  }
  const deadline = AbortSignal.timeout(SECRET_TIMEOUT_MS);
  let secret: Secret;
  try {
    secret = await secrets.get(ref.namespace, ref.name, signal ? AbortSignal.any([signal, deadline]) : deadline);
  } catch (err) {
    throw wrapError(`failed to get secret ${secretName(ref)}`, err);
  }
  return { data: secret.data, grant: SecretGrant.of(secret, ref, needs, destinations) };
}
