// UFM basic-auth credentials from a Secret (04-discovery §5.1), with the
// error texts of pkg/controllers/hypernode/discovery/ufm/ufm.go. We read the
// Secret at construction (as Go) and again before every discovery run, so a
// rotated Secret applies without restarting the source.

import { Buffer } from 'node:buffer';
import type { SecretClient } from '../../api/interface.ts';

export interface SecretRef {
  readonly name: string;
  readonly namespace: string;
}

export interface Credentials {
  readonly username: string;
  readonly password: string;
}

/** How long one Secret GET may take (Go has no limit; a hung call must not stall discovery). */
export const SECRET_TIMEOUT_MS = 30_000;

export async function readCredentials(secrets: SecretClient, ref: SecretRef, signal?: AbortSignal): Promise<Credentials> {
  const where = `${ref.namespace}/${ref.name}`;
  const deadline = AbortSignal.timeout(SECRET_TIMEOUT_MS);
  let data: Record<string, string> | undefined;
  try {
    data = (await secrets.get(ref.namespace, ref.name, signal ? AbortSignal.any([signal, deadline]) : deadline)).data;
  } catch (err) {
    throw new Error(`failed to get secret ${where}: ${(err as Error).message ?? String(err)}`, { cause: err });
  }
  const decode = (key: 'username' | 'password'): string => {
    const value = data?.[key];
    if (value === undefined) throw new Error(`${key} not found in secret ${where}`);
    return Buffer.from(value, 'base64').toString('utf8');
  };
  return { username: decode('username'), password: decode('password') };
}

export function basicAuthorization(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`, 'utf8').toString('base64')}`;
}
