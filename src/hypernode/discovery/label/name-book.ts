// HyperNode names of the label source (docs/design.md §2.1 step 3): the
// NameBook of one run, which adopts a group's existing name or derives
// `hypernode-<type>-tier<N>-<5 symbols>`, and the hashed names of profiles and
// presets. Mirrors chooseHyperNodeName and
// generateRandomString of pkg/controllers/hypernode/discovery/label/label.go,
// with two deliberate changes (docs/differences-from-go.md item 5): existing names are
// adopted only on the prefix *with* its trailing dash (tier1 ≠ tier10), and
// new suffixes are derived from (type, tier, label key, value) instead of
// drawn at random, so replicas and reruns agree on the same name.

import { createHash } from 'node:crypto';
import type { Lister } from '../../../kube/types.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import type { HyperNode } from '../../model/hypernode-types.ts';
import { LABEL_SOURCE, NETWORK_TOPOLOGY_SOURCE_LABEL } from '../../model/hypernode-labels.ts';

/** Go's alphabet: consonants and digits without 0, 1, 3 (no look-alikes, no words). */
export const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export const SUFFIX_LENGTH = 5;
export const MAX_NAME_ATTEMPTS = 20;

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
  const digest = createHash('sha256')
    .update(JSON.stringify([typeName, tier, key, value, attempt]))
    .digest();
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
 * Name look-ups for one discovery run. The label-sourced HyperNodes are read
 * from the cache once and indexed by each of their labels, so adopting names
 * costs one cache scan per run instead of one per group.
 */
export class NameBook {
  /** JSON [key, value] → names of label HyperNodes carrying that label, byte-sorted. */
  private readonly byLabel = new Map<string, string[]>();

  /** Reads the cache; throws on a cache read error. */
  constructor(private readonly hyperNodes: Lister<HyperNode>) {
    for (const hn of hyperNodes.list({ [NETWORK_TOPOLOGY_SOURCE_LABEL]: LABEL_SOURCE })) {
      for (const [k, v] of Object.entries(hn.metadata.labels ?? {})) {
        const id = JSON.stringify([k, v]);
        const names = this.byLabel.get(id);
        if (names) names.push(hn.metadata.name);
        else this.byLabel.set(id, [hn.metadata.name]);
      }
    }
    for (const names of this.byLabel.values()) names.sort(compareBytes);
  }

  /**
   * The name for the group `key=value` at `tier` of `typeName`: the smallest
   * existing label HyperNode of that group with the right prefix, else the
   * first derived name neither in the cache nor `taken` in this run. Throws
   * on a cache read error or after MAX_NAME_ATTEMPTS collisions.
   */
  choose(taken: { has(name: string): boolean }, typeName: string, key: string, value: string, tier: number): string {
    const prefix = namePrefix(typeName, tier);
    const adopted = this.labelled(key, value).find((name) => name.startsWith(prefix));
    if (adopted !== undefined) return adopted;
    for (let attempt = 0; attempt < MAX_NAME_ATTEMPTS; attempt++) {
      const name = prefix + derivedSuffix(typeName, tier, key, value, attempt);
      if (!taken.has(name) && this.hyperNodes.get(name) === undefined) return name;
    }
    throw new Error(`unable to get unique hyperNodeName after ${MAX_NAME_ATTEMPTS} attempts`);
  }

  /** Names of the label HyperNodes in the cache that carry `key=value`, byte-sorted. */
  labelled(key: string, value: string): readonly string[] {
    return this.byLabel.get(JSON.stringify([key, value])) ?? [];
  }
}

/** Length of the hash part of a profile's HyperNode names, in hex digits (6 bytes). */
export const PROFILE_HASH_HEX_DIGITS = 12;

/**
 * The name a profile gives a new domain, the same in every replica and run:
 * `hypernode-<clean profile>-tier<N>-<h>`, h the first 6 bytes of
 * SHA-256(raw profile name, 0, label key, 0, value) in hex. The tier is not
 * hashed. As in Volcano's profile support, so both controllers name a domain alike.
 */
export function profileHyperNodeName(profile: string, key: string, value: string, tier: number): string {
  return presetHyperNodeName(profile, [[key, value]], tier);
}

/**
 * The name of a preset's domain: as profileHyperNodeName for a domain keyed
 * by its own label, with the labels above it hashed too (after further zero
 * bytes) for a domain whose value is unique only under its parent.
 */
export function presetHyperNodeName(
  profile: string,
  path: readonly (readonly [key: string, value: string])[],
  tier: number,
): string {
  const input = [profile, ...path.flat()].join('\0');
  const h = createHash('sha256').update(input, 'utf8').digest('hex').slice(0, PROFILE_HASH_HEX_DIGITS);
  return `${namePrefix(profile, tier)}${h}`;
}
