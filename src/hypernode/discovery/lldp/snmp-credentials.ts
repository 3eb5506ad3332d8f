// SNMP credentials of one fabric from a Kubernetes Secret, read before every
// poll so a rotated Secret applies without a restart. v2c needs the key
// `community`; v3 (user-based security, always authPriv) needs `username`,
// `authKey` and `privKey`, with `authProtocol` (SHA or SHA-256, default
// SHA-256) and `privProtocol` (AES, the only one offered: DES is broken and
// missing from current OpenSSL builds). Values are never logged.

import { Buffer } from 'node:buffer';
import type { SecretClient } from '../../model/contracts.ts';
import { readSecretData, type SecretRef } from '../remote/credentials.ts';

export type SnmpVersion = '2c' | '3';
export const SNMP_VERSIONS: readonly SnmpVersion[] = ['2c', '3'];
export const AUTH_PROTOCOLS = ['SHA', 'SHA-256'] as const;
export const PRIV_PROTOCOLS = ['AES'] as const;
/** RFC 3414 rejects passphrases shorter than 8 octets; net-snmp's agents do too. */
const MIN_KEY_LENGTH = 8;

export type SnmpCredentials =
  | { readonly version: '2c'; readonly community: string }
  | {
      readonly version: '3';
      readonly username: string;
      readonly authProtocol: (typeof AUTH_PROTOCOLS)[number];
      readonly authKey: string;
      readonly privProtocol: (typeof PRIV_PROTOCOLS)[number];
      readonly privKey: string;
    };

/** Reads and checks the Secret; errors name the Secret and the key, never a value. */
export async function readSnmpCredentials(
  secrets: SecretClient,
  ref: SecretRef,
  version: SnmpVersion,
  signal?: AbortSignal,
): Promise<SnmpCredentials> {
  const where = `${ref.namespace}/${ref.name}`;
  const data = await readSecretData(secrets, ref, signal);
  const value = (key: string, fallback?: string): string => {
    const raw = data?.[key];
    if (raw === undefined) {
      if (fallback !== undefined) return fallback;
      throw new Error(
        `${key} not found in secret ${where} (SNMP version ${version} needs ${version === '2c' ? '"community"' : '"username", "authKey" and "privKey"'})`,
      );
    }
    const text = Buffer.from(raw, 'base64').toString('utf8');
    if (text === '') throw new Error(`${key} is empty in secret ${where}`);
    return text;
  };
  if (version === '2c') return { version, community: value('community') };
  const authProtocol = value('authProtocol', 'SHA-256').toUpperCase();
  const privProtocol = value('privProtocol', 'AES').toUpperCase();
  if (!(AUTH_PROTOCOLS as readonly string[]).includes(authProtocol))
    throw new Error(`authProtocol in secret ${where} must be one of ${AUTH_PROTOCOLS.join(', ')}`);
  if (!(PRIV_PROTOCOLS as readonly string[]).includes(privProtocol))
    throw new Error(`privProtocol in secret ${where} must be ${PRIV_PROTOCOLS.join(', ')}`);
  const authKey = value('authKey');
  const privKey = value('privKey');
  for (const [key, v] of [
    ['authKey', authKey],
    ['privKey', privKey],
  ] as const) {
    if (v.length < MIN_KEY_LENGTH)
      throw new Error(
        `${key} in secret ${where} is shorter than ${MIN_KEY_LENGTH} characters, which SNMPv3 agents refuse`,
      );
  }
  return {
    version,
    username: value('username'),
    authProtocol: authProtocol as (typeof AUTH_PROTOCOLS)[number],
    authKey,
    privProtocol: privProtocol as (typeof PRIV_PROTOCOLS)[number],
    privKey,
  };
}
