// The decoder of the label source's `config` (docs/configuration.md,
// "label"): `networkTopologyTypes` into topology types, each a list
// (list/list-config.ts), a profile or a preset profile (label-profiles.ts).
// Mirrors the decoding in pkg/controllers/hypernode/discovery/label/label.go;
// a list's tier i+1 is the i-th label from the end, skipping the last
// (hostname) entry.

import type { Logger } from '../../../log.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { isMapping } from '../../../util/is-mapping.ts';
import { unknownKeys, warnUnknownKeys } from '../../config/unknown-keys.ts';
import { wrapError } from '../../../util/error-message.ts';
import { isProfileForm, type Profile } from './profile/profile-config.ts';
import { profilesOf, type PresetProfile, type ProfileEntry } from './label-profiles.ts';
import { DecodeErrors } from './profile/strict-decode.ts';
import { decodeLabels, field, listTypeRejection } from './list/list-config.ts';
import { quoteInput } from '../../../util/input-fragment.ts';

/** The keys the label source reads; anything else is a typo worth naming. */
const CONFIG_KEYS = ['networkTopologyTypes'];

/** One topology type: its name and its label keys, tier 1 first. */
export interface TopologyType {
  readonly name: string;
  /** Empty for a preset profile, whose keys depend on the Node (preset.stack.watches). */
  readonly tiers: readonly string[];
  /** Present when written in the profile form (profile/profile-config.ts); absent for a legacy list. */
  readonly profile?: Profile;
  /** Present for a preset profile (preset/preset-stack.ts). */
  readonly preset?: PresetProfile;
}

interface DecodedTypes {
  /** Raw type name → label list, for the legacy list form. */
  readonly legacy: Map<string, string[]>;
  /** Raw profile name → its mapping, for the profile form. */
  readonly profiles: Map<string, Record<string, unknown>>;
  /** Keys of the config other than networkTopologyTypes. */
  readonly unknown: readonly string[];
}

/** The types by form, or an error when the shape cannot be decoded or is absent. */
function decodeTypes(config: Readonly<Record<string, unknown>>, logger: Logger): DecodedTypes {
  const unknown = unknownKeys(config, CONFIG_KEYS, { ignoreCase: true });
  warnUnknownKeys(logger, 'label config', unknown, CONFIG_KEYS);
  const raw = field(config as Record<string, unknown>, 'networkTopologyTypes');
  if (raw === undefined || raw === null) {
    const found =
      unknown.length > 0 ? ` (the config has ${unknown.map((k) => quoteInput(k)).join(', ')}; misspelled?)` : '';
    throw new Error(`networkTopologyTypes is missing from the label source's config${found}`);
  }
  if (!isMapping(raw)) throw new Error('networkTopologyTypes: expected a mapping of type name to label list');
  const legacy = new Map<string, string[]>();
  const profiles = new Map<string, Record<string, unknown>>();
  for (const [name, labels] of Object.entries(raw)) {
    if (isProfileForm(labels)) profiles.set(name, labels);
    else legacy.set(name, decodeLabels(labels, name, logger));
  }
  return { legacy, profiles, unknown };
}

/**
 * A configuration that uses the profile form is decoded strictly, as
 * Volcano's profile support does: a key beside networkTopologyTypes is an
 * error there, not a warning.
 */
function rejectUnknownConfigKeys(unknown: readonly string[]): void {
  if (unknown.length === 0) return;
  const errs = new DecodeErrors();
  errs.add(`'' has invalid keys: ${[...unknown].sort().join(', ')}`);
  throw new Error(`decode networkTopologyTypes: ${errs.message()}`);
}

/**
 * The configured topology types, sorted by name so that runs are
 * deterministic (Go iterates a map). A rejected type is logged and skipped,
 * as in Go.
 *
 * Throws when no usable type remains: a missing (or misspelled)
 * `networkTopologyTypes`, one that cannot be decoded, or one whose every type
 * is rejected. Go logs these and runs with no types, and its first empty
 * snapshot deletes every label HyperNode; we refuse to start the source
 * instead, so a typo deletes nothing.
 */
export function topologyTypes(config: Readonly<Record<string, unknown>> | undefined, logger: Logger): TopologyType[] {
  let d: DecodedTypes;
  try {
    d = decodeTypes(config ?? {}, logger);
  } catch (err) {
    throw wrapError('Cannot get networkTopologyTypes', err);
  }
  const decoded = d.legacy;
  // Profile errors keep Volcano's texts, unprefixed.
  if (d.profiles.size > 0) rejectUnknownConfigKeys(d.unknown);
  const profiles = d.profiles.size > 0 ? profilesOf(d.profiles) : new Map<string, ProfileEntry>();
  const types: TopologyType[] = [...profiles].map(([name, entry]) =>
    'profile' in entry
      ? Object.freeze({
          name,
          tiers: Object.freeze(entry.profile.levels.map((l) => l.nodeLabel)),
          profile: entry.profile,
        })
      : Object.freeze({ name, tiers: [], preset: entry.preset }),
  );
  const rejected: string[] = [];
  for (const name of [...decoded.keys()].sort(compareBytes)) {
    const labels = decoded.get(name)!;
    const why = listTypeRejection(name, labels);
    if (why !== undefined) {
      logger.error(why, { topologyTypeName: name, labels });
      rejected.push(why);
      continue;
    }
    types.push(Object.freeze({ name, tiers: Object.freeze(labels.slice(0, -1).reverse()) }));
  }
  types.sort((a, b) => compareBytes(a.name, b.name));
  if (types.length === 0) {
    const reasons = rejected.length > 0 ? `every type is rejected: ${rejected.join('; ')}` : 'it lists no type';
    throw new Error(`Cannot get networkTopologyTypes: no usable topology type, ${reasons}`);
  }
  return types;
}
