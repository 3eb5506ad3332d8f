// The entries of `networkTopologyTypes` written in the profile form, checked
// as a set: each one becomes a hand-written profile (profile/) or a preset
// profile (preset/), in raw-name byte order, the first failure reported;
// two names giving one label value fail, and so do preset profiles that
// would give one tierName two tier numbers (each preset numbers its tiers
// alike on every cluster, so this is known before any Node is read).

import { compareBytes } from '../../../util/compare-bytes.ts';
import {
  checkedLabelValue,
  checkProfileName,
  decodeProfile,
  validateProfile,
  type Profile,
} from './profile/profile-config.ts';
import { PresetStack } from './preset/preset-stack.ts';
import { wrapError } from '../../../util/error-message.ts';
import { quoteInput } from '../../../util/input-fragment.ts';

/** A preset profile, ready to run. */
export interface PresetProfile {
  /** Value of the profile label on its HyperNodes. */
  readonly labelValue: string;
  readonly stack: PresetStack;
}

export type ProfileEntry = { readonly profile: Profile } | { readonly preset: PresetProfile };

const quote = (s: string) => quoteInput(s);

/** The profile-form entries by raw name, byte-sorted; throws the first failure. */
export function profilesOf(raw: ReadonlyMap<string, Record<string, unknown>>): Map<string, ProfileEntry> {
  const out = new Map<string, ProfileEntry>();
  const byLabelValue = new Map<string, string>();
  // tierName → [tier, preset profile] over the presets so far.
  const presetTiers = new Map<string, [number, string]>();
  for (const name of [...raw.keys()].sort(compareBytes)) {
    checkProfileName(name);
    const spec = decodeProfile(name, raw.get(name)!);
    let entry: ProfileEntry;
    let labelValue: string;
    if (spec.preset.length === 0) {
      if (spec.nvlink !== '')
        throw new Error(`invalid topology profile ${quote(name)}: nvlink is a preset option; set preset too`);
      const profile = validateProfile(spec);
      entry = { profile };
      labelValue = profile.labelValue;
    } else {
      if (spec.levels.length > 0)
        throw new Error(
          `invalid topology profile ${quote(name)}: preset ${quote(spec.preset.join(', '))} brings its own levels; remove levels or the preset`,
        );
      let stack: PresetStack | string;
      try {
        stack = PresetStack.compile({
          name,
          nodeSelector: spec.nodeSelector,
          presets: spec.preset,
          nvlink: spec.nvlink,
        });
      } catch (err) {
        throw wrapError(`invalid nodeSelector for topology profile ${quote(name)}`, err);
      }
      if (typeof stack === 'string') throw new Error(`invalid topology profile ${quote(name)}: ${stack}`);
      labelValue = checkedLabelValue(name);
      for (const [tierName, tier] of stack.tierNames()) {
        const earlier = presetTiers.get(tierName);
        if (earlier && earlier[0] !== tier) {
          throw new Error(
            `preset profiles ${quote(earlier[1])} and ${quote(name)} put tierName ${quote(tierName)} at tier ${earlier[0]} and tier ${tier}; ` +
              'released Volcano schedulers keep one tier per tierName, so merge them into one profile (nodes without a level simply skip its tier) or give them the same nvlink and zone setting',
          );
        }
        if (!earlier) presetTiers.set(tierName, [tier, name]);
      }
      entry = { preset: { labelValue, stack } };
    }
    const earlier = byLabelValue.get(labelValue);
    if (earlier !== undefined)
      throw new Error(
        `topology profile names ${quote(earlier)} and ${quote(name)} normalize to the same label value ${quote(labelValue)}`,
      );
    byLabelValue.set(labelValue, name);
    out.set(name, entry);
  }
  return out;
}
