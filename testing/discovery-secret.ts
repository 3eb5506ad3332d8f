// A Secret as an operator writes one for HyperNode discovery: labelled for
// discovery and naming where its credentials may go (docs/configuration.md,
// "Credentials"), its `data` given as plain text and stored base64-encoded as
// the API serves it. Shared by the tests, the demo and the benchmarks.

import { Buffer } from 'node:buffer';
import {
  ALLOW_INSECURE_SKIP_VERIFY_ANNOTATION,
  ALLOW_PLAIN_HTTP_ANNOTATION,
  ALLOWED_ENDPOINTS_ANNOTATION,
  ALLOWED_HOSTS_ANNOTATION,
  DISCOVERY_CREDENTIALS_LABEL,
} from '../src/hypernode/model/hypernode-labels.ts';
import type { Secret } from '../src/hypernode/model/hypernode-types.ts';
import { urlOrigin } from '../src/hypernode/discovery/remote/secret-grant.ts';

/** What the Secret allows; without `label: false` it carries the discovery label. */
export interface SecretAllows {
  /** URLs (or `host:port`, https assumed) whose origins its token or password may be sent to. */
  readonly endpoints?: readonly string[];
  /** SNMP agents: addresses, networks or host names. */
  readonly hosts?: readonly string[];
  readonly plainHttp?: boolean;
  readonly insecureSkipVerify?: boolean;
  /** false: no discovery label (a Secret that never opted in). */
  readonly label?: boolean;
}

export function discoverySecret(
  namespace: string,
  name: string,
  data: Readonly<Record<string, string>>,
  allows: SecretAllows,
): Secret & { apiVersion: string; kind: string } {
  const annotations: Record<string, string> = {};
  if (allows.endpoints) annotations[ALLOWED_ENDPOINTS_ANNOTATION] = allows.endpoints.map(urlOrigin).join(',');
  if (allows.hosts) annotations[ALLOWED_HOSTS_ANNOTATION] = allows.hosts.join(',');
  if (allows.plainHttp) annotations[ALLOW_PLAIN_HTTP_ANNOTATION] = 'true';
  if (allows.insecureSkipVerify) annotations[ALLOW_INSECURE_SKIP_VERIFY_ANNOTATION] = 'true';
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace,
      ...(allows.label === false ? {} : { labels: { [DISCOVERY_CREDENTIALS_LABEL]: 'true' } }),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

/** The hosts part of `host:port` switch addresses (`127.0.0.1:16100` → `127.0.0.1`), for `hosts`. */
export function switchHosts(addresses: readonly string[]): string[] {
  return [...new Set(addresses.map((a) => a.replace(/^\[(.*)\](:\d+)?$/, '$1').replace(/^([^:]+):\d+$/, '$1')))];
}
