// HyperNode names of the label source (04-discovery §4.5):
// `hypernode-<type>-tier<N>-<5 symbols>`. Mirrors chooseHyperNodeName and
// generateRandomString of pkg/controllers/hypernode/discovery/label/label.go,
// with two deliberate changes (00-overview §4 item 5): existing names are
// adopted only on the prefix *with* its trailing dash (tier1 ≠ tier10), and
// new suffixes are derived from (type, tier, label key, value) instead of
// drawn at random, so replicas and reruns agree on the same name.

import { createHash } from 'node:crypto';
import type { Lister } from '../../../kube/types.ts';
import { compareBytes } from '../../api/builders.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, type HyperNode } from '../../api/types.ts';

/** Go's alphabet: consonants and digits without 0, 1, 3 (no look-alikes, no words). */
export const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export const SUFFIX_LENGTH = 5;
export const MAX_NAME_ATTEMPTS = 20;
export const LABEL_SOURCE = 'label';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isDNS1123Subdomain(name: string): boolean {
  return name.length <= 253 && DNS1123_SUBDOMAIN.test(name);
}

/**
 * Go's clean(): ASCII letters lower-cased, ASCII digits, `.` and `-` kept,
 * everything else `-`. Non-ASCII code points become `-` (Go truncates them to
 * a byte, producing garbage).
 */
export function cleanTypeName(typeName: string): string {
  let out = '';
  for (const ch of typeName) out += /^[A-Za-z0-9.-]$/.test(ch) ? ch.toLowerCase() : '-';
  return out;
}

/** `hypernode-<clean type>-tier<N>-`: what every name of this type and tier starts with. */
export function namePrefix(typeName: string, tier: number): string {
  return `hypernode-${cleanTypeName(typeName)}-tier${tier}-`;
}

/** Suffix number `attempt` for a group: a hash of its identity in base 27. */
export function derivedSuffix(typeName: string, tier: number, key: string, value: string, attempt: number): string {
  const digest = createHash('sha256').update(JSON.stringify([typeName, tier, key, value, attempt])).digest();
  let n = digest.readBigUInt64BE(0);
  const base = BigInt(SUFFIX_ALPHABET.length);
  let out = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) {
    out += SUFFIX_ALPHABET[Number(n % base)];
    n /= base;
  }
  return out;
}

/**
 * The name for the group `key=value` at `tier` of `typeName`: the smallest
 * existing label-sourced HyperNode of that group with the right prefix, else
 * the first derived name not in the cache and not `taken` in this run.
 * Throws on a cache read error or after MAX_NAME_ATTEMPTS collisions.
 */
export function chooseName(
  hyperNodes: Lister<HyperNode>,
  taken: { has(name: string): boolean },
  typeName: string,
  key: string,
  value: string,
  tier: number,
): string {
  const prefix = namePrefix(typeName, tier);
  const candidates = hyperNodes
    .list({ [key]: value, [NETWORK_TOPOLOGY_SOURCE_LABEL]: LABEL_SOURCE })
    .map((hn) => hn.metadata.name)
    .sort(compareBytes);
  const adopted = candidates.find((name) => name.startsWith(prefix));
  if (adopted !== undefined) return adopted;
  for (let attempt = 0; attempt < MAX_NAME_ATTEMPTS; attempt++) {
    const name = prefix + derivedSuffix(typeName, tier, key, value, attempt);
    if (!taken.has(name) && hyperNodes.get(name) === undefined) return name;
  }
  throw new Error(`unable to get unique hyperNodeName after ${MAX_NAME_ATTEMPTS} attempts`);
}
