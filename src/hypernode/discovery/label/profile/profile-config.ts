// The profile form of `networkTopologyTypes`: a profile names the Nodes it
// covers (`nodeSelector`) and its ordered `levels` (highest domain first, the
// hostname leaf last), each with a `tierName`. Decoding and validation follow
// the profile support proposed for Volcano's
// pkg/controllers/hypernode/discovery/label/label.go (strict decoding, the
// checks in their order, the first failure reported with Volcano's text): a
// bad profile rejects the whole configuration, so the source does not start
// and no HyperNode is touched. Three optional fields go beyond Volcano (whose
// decoder rejects them): `valuePattern` on a level (value-pattern.ts), and
// `preset` and `nvlink` on a profile, which label-config.ts hands to
// ../preset/ instead of validating the profile here.

import { isMapping } from '../../../../util/is-mapping.ts';
import { DecodeErrors, decodeFields, weakList, weakMapping, weakString } from './strict-decode.ts';
import { compileNodeSelector, decodeNodeSelector, type NodeSelectorSpec } from './profile-selector.ts';
import { labelValueErrors, qualifiedNameErrors } from './label-syntax.ts';
import { compileValuePattern, wholeValue, type DomainOf } from './value-pattern.ts';
import { cleanTypeName } from '../name-book.ts';
import { HOSTNAME_LABEL } from '../../../model/hypernode-labels.ts';
import { wrapError } from '../../../../util/error-message.ts';
import { quoteInput } from '../../../../util/input-fragment.ts';

export const MAX_PROFILE_NAME_BYTES = 20;

/** The keys that make a mapping a profile rather than a legacy level entry. */
export const PROFILE_KEYS = ['nodeSelector', 'levels', 'preset', 'nvlink'] as const;
const LEVEL_KEYS = ['nodeLabel', 'tierName', 'valuePattern'] as const;

/** One level as written. */
export interface LevelSpec {
  readonly nodeLabel: string;
  readonly tierName: string;
  /** RE2; empty: the whole label value is the domain. */
  readonly valuePattern: string;
}

/** One profile as written (or as a preset expands it). */
export interface ProfileSpec {
  readonly name: string;
  /** undefined: selector-less (behaves like a legacy list). */
  readonly nodeSelector: NodeSelectorSpec | undefined;
  readonly levels: readonly LevelSpec[];
  /** The preset names as written (a single name or a list, top first); empty when none. */
  readonly preset: readonly string[];
  readonly nvlink: string;
}

/** One non-leaf level, ready to run. */
export interface ProfileLevel {
  readonly nodeLabel: string;
  readonly tierName: string;
  readonly valuePattern: string;
  readonly domainOf: DomainOf;
}

/** A validated profile. */
export interface Profile {
  /** Value of NETWORK_TOPOLOGY_PROFILE_LABEL on its HyperNodes. */
  readonly labelValue: string;
  /** Has a nodeSelector (even `{}`): owns the Nodes it selects, and they must carry every level. */
  readonly explicit: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  readonly selectorKeys: readonly string[];
  /** Tier 1 first. */
  readonly levels: readonly ProfileLevel[];
}

/** True when `value` is written in the profile form. */
export function isProfileForm(value: unknown): value is Record<string, unknown> {
  if (!isMapping(value)) return false;
  const keys = Object.keys(value).map((k) => k.toLowerCase());
  return PROFILE_KEYS.some((k) => keys.includes(k.toLowerCase()));
}

const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8');
const quote = (s: string) => quoteInput(s);

/** The profile label value: the cleaned name without leading and trailing `.` and `-`. */
export function profileLabelValue(name: string): string {
  return cleanTypeName(name).replace(/^[.-]+|[.-]+$/g, '');
}

/** Decodes one profile value; throws `decode topology profile …` on a decode error. */
export function decodeProfile(name: string, raw: Record<string, unknown>): ProfileSpec {
  const errs = new DecodeErrors();
  const f = decodeFields(raw, PROFILE_KEYS, '', errs);
  const selectorRaw = weakMapping(f.nodeSelector, 'nodeSelector', errs);
  const nodeSelector = selectorRaw ? decodeNodeSelector(selectorRaw, 'nodeSelector', errs) : undefined;
  const levels = weakList(f.levels).flatMap((item, i): LevelSpec[] => {
    const where = `levels[${i}]`;
    if (item === null || item === undefined) return [{ nodeLabel: '', tierName: '', valuePattern: '' }];
    const obj = weakMapping(item, where, errs);
    if (!obj) return [];
    const l = decodeFields(obj, LEVEL_KEYS, where, errs);
    return [
      {
        nodeLabel: weakString(l.nodeLabel, `${where}.nodeLabel`, errs),
        tierName: weakString(l.tierName, `${where}.tierName`, errs),
        valuePattern: weakString(l.valuePattern, `${where}.valuePattern`, errs),
      },
    ];
  });
  const preset = weakList(f.preset).map((p, i) => weakString(p, `preset[${i}]`, errs));
  const spec = { name, nodeSelector, levels, preset, nvlink: weakString(f.nvlink, 'nvlink', errs) };
  const message = errs.message();
  if (message !== undefined) throw new Error(`decode topology profile ${quote(name)}: ${message}`);
  return spec;
}

/** Validates one profile (P4–P11 and the extensions' checks); throws the first failure. */
export function validateProfile(spec: ProfileSpec): Profile {
  const name = spec.name;
  const invalid = (why: string) => new Error(`invalid topology profile ${quote(name)}: ${why}`);
  const seen = new Set<string>();
  const levels = spec.levels;
  for (const level of levels) {
    if (level.nodeLabel === '') throw invalid('nodeLabel cannot be empty');
    const keyErrs = qualifiedNameErrors(level.nodeLabel);
    if (keyErrs.length > 0)
      throw invalid(`nodeLabel ${quote(level.nodeLabel)} is not a valid qualified name: ${keyErrs.join('; ')}`);
    // Two levels may read one label through different value patterns (NVLink domain and partition).
    const id = JSON.stringify([level.nodeLabel, level.valuePattern]);
    if (seen.has(id)) throw invalid('there are duplicate labels');
    seen.add(id);
  }
  if (levels.length < 2) throw invalid('at least one topology level and one node level are required');
  const leaf = levels[levels.length - 1]!;
  if (leaf.nodeLabel !== HOSTNAME_LABEL) throw invalid(`last level must use nodeLabel ${quote(HOSTNAME_LABEL)}`);
  if (leaf.tierName !== '') throw invalid('node leaf level must not set tierName');
  if (leaf.valuePattern !== '') throw invalid('node leaf level must not set valuePattern');
  let selector: ReturnType<typeof compileNodeSelector> | undefined;
  if (spec.nodeSelector) {
    try {
      selector = compileNodeSelector(spec.nodeSelector);
    } catch (err) {
      throw wrapError(`invalid nodeSelector for topology profile ${quote(name)}`, err);
    }
  }
  const tiers: ProfileLevel[] = [];
  const tierNames = new Set<string>();
  for (const level of levels.slice(0, -1).reverse()) {
    const tierName = level.tierName !== '' ? level.tierName : level.nodeLabel;
    if (tierNames.has(tierName)) throw invalid(`duplicate tierName ${quote(tierName)}`);
    tierNames.add(tierName);
    let domainOf = wholeValue;
    if (level.valuePattern !== '') {
      const compiled = compileValuePattern(level.valuePattern);
      if (typeof compiled === 'string')
        throw invalid(
          `valuePattern ${quote(level.valuePattern)} of nodeLabel ${quote(level.nodeLabel)} is not usable: ${compiled}`,
        );
      domainOf = compiled;
    }
    tiers.push({ nodeLabel: level.nodeLabel, tierName, valuePattern: level.valuePattern, domainOf });
  }
  const labelValue = checkedLabelValue(name);
  return {
    labelValue,
    explicit: selector !== undefined,
    matches: selector ? selector.matches : () => true,
    selectorKeys: selector?.keys ?? [],
    levels: tiers,
  };
}

/** The profile's label value (P12, P13); throws when the name gives none. */
export function checkedLabelValue(name: string): string {
  const labelValue = profileLabelValue(name);
  if (labelValue === '') throw new Error(`topology profile name ${quote(name)} cannot be normalized to a label value`);
  // Non-ASCII names are cleaned to dashes here (Go keeps a truncated byte), so this is reached only by length.
  const valueErrs = labelValueErrors(labelValue);
  if (valueErrs.length > 0)
    throw new Error(
      `topology profile name ${quote(name)} has invalid normalized label value ${quote(labelValue)}: ${valueErrs.join('; ')}`,
    );
  return labelValue;
}

/** P1: the name's UTF-8 length. */
export function checkProfileName(name: string): void {
  if (utf8Length(name) > MAX_PROFILE_NAME_BYTES)
    throw new Error(`topology profile name ${quote(name)} exceeds ${MAX_PROFILE_NAME_BYTES} characters`);
}
