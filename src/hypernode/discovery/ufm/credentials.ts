// UFM basic-auth credentials from a Secret (04-discovery §5.1), with the
// error texts of pkg/controllers/hypernode/discovery/ufm/ufm.go. We read the
// Secret at construction (as Go) and again before every discovery run, so a
// rotated Secret applies without restarting the source; every read checks
// that both values are present and non-empty.

import { Buffer } from 'node:buffer';
import type { SecretClient } from '../../api/interface.ts';
import { wrapError } from '../../../util/error-message.ts';

export interface SecretRef {
  readonly name: string;
  readonly namespace: string;
}

/**
 * The Secret's values as raw bytes. Secrets hold bytes, not text: decoding
 * them as UTF-8 would replace every invalid sequence with U+FFFD and send a
 * different password.
 */
export interface Credentials {
  readonly username: Buffer;
  readonly password: Buffer;
}

export const NO_CREDENTIALS: Credentials = Object.freeze({ username: Buffer.alloc(0), password: Buffer.alloc(0) });

/** How long one Secret GET may take (Go has no limit; a hung call must not stall discovery). */
export const SECRET_TIMEOUT_MS = 30_000;

export async function readCredentials(secrets: SecretClient, ref: SecretRef, signal?: AbortSignal): Promise<Credentials> {
  const where = `${ref.namespace}/${ref.name}`;
  const deadline = AbortSignal.timeout(SECRET_TIMEOUT_MS);
  let data: Record<string, string> | undefined;
  try {
    data = (await secrets.get(ref.namespace, ref.name, signal ? AbortSignal.any([signal, deadline]) : deadline)).data;
  } catch (err) {
    throw wrapError(`failed to get secret ${where}`, err);
  }
  const decode = (key: 'username' | 'password'): Buffer => {
    const value = data?.[key];
    if (value === undefined) throw new Error(`${key} not found in secret ${where}`);
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === 0) throw new Error(`${key} is empty in secret ${where}`);
    return bytes;
  };
  return { username: decode('username'), password: decode('password') };
}

export function hasCredentials(c: Credentials): boolean {
  return c.username.length > 0 && c.password.length > 0;
}

/** `Basic base64(username ":" password)` over the raw bytes, as RFC 7617 and Go's SetBasicAuth do. */
export function basicAuthorization(c: Credentials): string {
  return `Basic ${Buffer.concat([c.username, Buffer.from(':'), c.password]).toString('base64')}`;
}
