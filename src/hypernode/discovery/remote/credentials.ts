// Credentials of a remote system from a Kubernetes Secret, and the
// `secretRef` naming that Secret in a source's config, shared by every
// source that reads one (a fabric manager's REST API, a graph URL, SNMP
// agents). The error texts are those of Go's UFM source
// (pkg/controllers/hypernode/discovery/ufm/ufm.go). Sources read the Secret
// before every discovery run, so a rotated Secret applies without restarting
// the source; every read checks that the values the scheme needs are present
// and non-empty. A Secret holds `username` and `password` (basic auth) or a
// `token`, and optionally a private CA (`ca.crt`, PEM) trusted for that
// system only. What a missing token means is the caller's to say. The
// Secret must allow the endpoint it is sent to (secret-grant.ts).

import { Buffer } from 'node:buffer';
import type { SecretClient } from '../../model/contracts.ts';
import { readGrantedSecret, urlOrigin, type HttpDestination, type SecretRef } from './secret-grant.ts';

/** How a `secretRef` is written, as its error says. */
const SECRET_REF_SHAPE = '{name: <secret>, namespace: <namespace>}';
const NAMESPACE_DEFAULT = "(namespace defaults to the entry's credentials.secretRef namespace)";

/**
 * A `secretRef` written in a source's config, `where` naming it in errors;
 * its namespace defaults to `fallback`'s (the entry's credentials.secretRef),
 * and without it `fallback` itself is the answer.
 */
export function secretRefOf(raw: unknown, where: string, fallback: SecretRef | undefined): SecretRef | undefined {
  if (raw === undefined || raw === null) return fallback;
  const r = (typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const { name, namespace = fallback?.namespace } = r;
  const namespaceWritten = r.namespace === undefined || typeof r.namespace === 'string';
  if (typeof name !== 'string' || name === '' || !namespaceWritten) {
    throw new Error(`${where} must be ${SECRET_REF_SHAPE} ${NAMESPACE_DEFAULT}`);
  }
  if (!namespace) throw new Error(`${where}.namespace is needed when the entry has no credentials.secretRef`);
  return { name, namespace: namespace as string };
}

/**
 * The Secret's values as raw bytes. Secrets hold bytes, not text: decoding
 * them as UTF-8 would replace every invalid sequence with U+FFFD and send a
 * different password.
 */
export interface Credentials {
  readonly username: Buffer;
  readonly password: Buffer;
  /** An access token (scheme token). */
  readonly token?: Buffer;
  /** PEM certificates from `ca.crt`: the only roots trusted for the endpoint when present. */
  readonly ca?: string;
}

/** basic: a username and a password (Go's only scheme); token: one access token. */
export type AuthScheme = 'basic' | 'token';
export const AUTH_SCHEMES: readonly AuthScheme[] = ['basic', 'token'];

export const NO_CREDENTIALS: Credentials = Object.freeze({ username: Buffer.alloc(0), password: Buffer.alloc(0) });
const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

/**
 * The Secret's values for `auth`, once the Secret allows sending them `to`
 * that endpoint; errors name the Secret and the key, never a value.
 * `tokenHint` says, in the caller's words, what a missing token is (e.g.
 * which system's token belongs under the key), after the Secret's name.
 */
export async function readCredentials(
  secrets: SecretClient,
  ref: SecretRef,
  to: HttpDestination,
  signal?: AbortSignal,
  auth: AuthScheme = 'basic',
  tokenHint?: string,
): Promise<Credentials> {
  const where = `${ref.namespace}/${ref.name}`;
  const { data, grant } = await readGrantedSecret(secrets, ref, 'endpoints', [urlOrigin(to.url)], signal);
  grant.checkEndpoint(to);
  const decode = (key: 'username' | 'password' | 'token'): Buffer => {
    const value = data?.[key];
    if (value === undefined)
      throw new Error(`${key} not found in secret ${where}${key === 'token' && tokenHint ? ` (${tokenHint})` : ''}`);
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === 0) throw new Error(`${key} is empty in secret ${where}`);
    return bytes;
  };
  const caValue = data?.['ca.crt'];
  let ca: string | undefined;
  if (caValue !== undefined) {
    ca = Buffer.from(caValue, 'base64').toString('utf8');
    if (!ca.includes(PEM_CERTIFICATE))
      throw new Error(
        `ca.crt in secret ${where} holds no PEM certificate (want text starting with ${PEM_CERTIFICATE})`,
      );
  }
  const withCa = ca === undefined ? {} : { ca };
  if (auth === 'token') return { ...NO_CREDENTIALS, token: decode('token'), ...withCa };
  return { username: decode('username'), password: decode('password'), ...withCa };
}

export function hasCredentials(c: Credentials, auth: AuthScheme = 'basic'): boolean {
  return auth === 'token' ? (c.token?.length ?? 0) > 0 : c.username.length > 0 && c.password.length > 0;
}

/** `Basic base64(username ":" password)` over the raw bytes, as RFC 7617 and Go's SetBasicAuth do. */
export function basicAuthorization(c: Credentials): string {
  return `Basic ${Buffer.concat([c.username, Buffer.from(':'), c.password]).toString('base64')}`;
}
