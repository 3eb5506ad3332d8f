// SNMP credentials of one fabric from a Kubernetes Secret, read before every
// poll so a rotated Secret applies without a restart. v2c needs the key
// `community`; v3 (user-based security, always authPriv) needs `username`,
// `authKey` and `privKey`, with `authProtocol` (SHA or SHA-256, default
// SHA-256) and `privProtocol` (AES, the only one offered: DES is broken and
// missing from current OpenSSL builds). Values are never logged. The Secret
// names the agents they may be sent to (remote/secret-grant.ts).

import { Buffer } from 'node:buffer';
import type { SecretClient } from '../../model/contracts.ts';
import { readGrantedSecret, type SecretGrant, type SecretRef } from '../remote/secret-grant.ts';

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

/** The credentials of a fabric and what its Secret lets them reach. */
export interface GrantedSnmpCredentials {
  readonly credentials: SnmpCredentials;
  /** Which agents the credentials may be sent to (a crawl asks it of every address it learns). */
  readonly grant: SecretGrant;
}

/**
 * Reads and checks the Secret, which must name every agent of `hosts` (the
 * switches and seeds the configuration lists); errors name the Secret and the
 * key, never a value.
 */
export async function readSnmpCredentials(
  secrets: SecretClient,
  ref: SecretRef,
  version: SnmpVersion,
  hosts: readonly string[],
  signal?: AbortSignal,
): Promise<GrantedSnmpCredentials> {
  const where = `${ref.namespace}/${ref.name}`;
  const { data, grant } = await readGrantedSecret(secrets, ref, 'hosts', hosts, signal);
  grant.checkHosts(hosts);
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
  if (version === '2c') return { credentials: { version, community: value('community') }, grant };
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
  const credentials: SnmpCredentials = {
    version,
    username: value('username'),
    authProtocol: authProtocol as (typeof AUTH_PROTOCOLS)[number],
    authKey,
    privProtocol: privProtocol as (typeof PRIV_PROTOCOLS)[number],
    privKey,
  };
  return { credentials, grant };
}
