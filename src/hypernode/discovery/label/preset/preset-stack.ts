// A preset profile made ready to run: its families stacked (an optional
// `k8s-zone` above one vendor family, an optional NVLink level below it) and
// every level given one fixed tier number, counted from the level nearest
// the Node. The numbering does not depend on which Nodes exist: a Node whose
// labels stop higher up joins its lowest domain directly and skips the tiers
// below, so each tierName sits at one tier in the whole cluster (released
// Volcano schedulers keep one tierName → tier map) and no name changes when
// a deeper label appears. `fit` reads one Node: its chain of domains, or why
// its labels do not fit (the Node is then left out, not the whole run).

import type { NodeSelectorSpec } from '../profile/profile-selector.ts';
import { compileNodeSelector } from '../profile/profile-selector.ts';
import { hasLabel, labelValue } from '../../../model/label-reads.ts';
import {
  domainOfValue,
  GPU_CLIQUE_LABEL,
  NVLINK_LEVELS,
  NVLINK_TIER_NAMES,
  type DomainTake,
} from '../../../model/nvlink.ts';
import { FAMILIES, K8S_ZONE_PRESET, NVLINK_PRESET, PRESET_NAMES, type FamilyLevel } from './preset-families.ts';
import { quoteInput } from '../../../../util/input-fragment.ts';

/** Why a Node's labels leave it out of a preset's tree: the reason label of hypernode_uncovered_nodes. */
export const LEFT_OUT_REASONS = [
  'missing-level',
  'empty-value',
  'bad-value',
  'conflicting-parent',
  'name-taken',
] as const;
export type LeftOutReason = (typeof LEFT_OUT_REASONS)[number];

/** One domain of a Node's chain. */
export interface ChainLink {
  readonly key: string;
  readonly value: string;
  readonly tier: number;
  readonly tierName: string;
  readonly scoped: boolean;
}

export type NodeFit =
  /** The Node carries none of the preset's levels: not part of this tree. */
  | { readonly kind: 'out' }
  /** Its domains, nearest first. */
  | { readonly kind: 'in'; readonly links: readonly ChainLink[] }
  | { readonly kind: 'bad'; readonly reason: LeftOutReason; readonly why: string };

/** A level with its tier. */
interface StackLevel extends FamilyLevel {
  readonly tier: number;
}

export interface PresetSpecInput {
  readonly name: string;
  readonly nodeSelector: NodeSelectorSpec | undefined;
  /** Top first: `[k8s-zone, aws]` puts zones above the AWS layers. */
  readonly presets: readonly string[];
  readonly nvlink: string;
}

type Labels = Readonly<Record<string, string>> | undefined;

/** A level's label as a Node carries it. */
interface Slot {
  readonly level: StackLevel;
  readonly key: string;
  readonly raw: string;
  readonly take?: DomainTake;
}

const CANONICAL_NUMBER = /^(0|[1-9][0-9]*)$/;

/** The compiled preset profile. */
export class PresetStack {
  /** The numbered family's levels made so far, by N. */
  private readonly numberedLevels: StackLevel[] = [];

  private constructor(
    /** Fixed levels, nearest first, with their tiers. */
    private readonly levels: readonly StackLevel[],
    /** The open-ended numbered family on top, if any: tier-N sits at `base + N + 1`. */
    private readonly numbered:
      | { readonly prefix: string; readonly stem: string; readonly tierNames: readonly string[]; readonly base: number }
      | undefined,
    /** Keys whose presence makes a Node part of the preset (the zone and NVLink keys alone do not). */
    private readonly memberKeys: ReadonlySet<string>,
    private readonly selector: ((labels: Labels) => boolean) | undefined,
    readonly selectorKeys: readonly string[],
  ) {}

  /** The stack `spec` describes, or why it cannot be built. */
  static compile(spec: PresetSpecInput): PresetStack | string {
    const nvlinkMode = spec.nvlink === '' ? undefined : NVLINK_LEVELS.find((m) => m === spec.nvlink);
    if (spec.nvlink !== '' && !nvlinkMode)
      return `nvlink ${quoteInput(spec.nvlink)} is none of ${NVLINK_LEVELS.join(', ')}`;
    for (const p of spec.presets)
      if (p !== NVLINK_PRESET && !FAMILIES[p])
        return `unknown preset ${quoteInput(p)} (known presets: ${PRESET_NAMES.join(', ')})`;
    const stackError = checkStack(spec.presets);
    if (stackError) return stackError;
    const bottom = spec.presets[spec.presets.length - 1]!;
    const levels: FamilyLevel[] = [];
    const memberKeys = new Set<string>();
    if (bottom === NVLINK_PRESET) {
      const mode = nvlinkMode ?? 'domain';
      levels.push({
        sources: [mode === 'domain' ? { key: GPU_CLIQUE_LABEL, take: 'cluster-uuid' } : { key: GPU_CLIQUE_LABEL }],
        tierName: NVLINK_TIER_NAMES[mode],
        required: true,
        scoped: false,
      });
      memberKeys.add(GPU_CLIQUE_LABEL);
    } else {
      const family = FAMILIES[bottom]!;
      if (nvlinkMode)
        levels.push({
          sources: family.nvlink[nvlinkMode],
          tierName: NVLINK_TIER_NAMES[nvlinkMode],
          required: false,
          scoped: false,
        });
      levels.push(...family.levels);
      for (const l of family.levels) for (const s of l.sources) memberKeys.add(s.key);
    }
    // A zone level sits above the vendor's top; its keys alone (every cloud Node has them) do not make a member.
    if (spec.presets.length === 2) levels.push(...FAMILIES[K8S_ZONE_PRESET]!.levels);
    const numberedFamily = bottom === NVLINK_PRESET ? undefined : FAMILIES[bottom]!.numbered;
    const numbered = numberedFamily && {
      ...numberedFamily,
      stem: `${numberedFamily.prefix}tier-`,
      base: levels.length,
    };
    let selector: ((labels: Labels) => boolean) | undefined;
    let selectorKeys: readonly string[] = [];
    if (spec.nodeSelector) {
      const compiled = compileNodeSelector(spec.nodeSelector);
      selector = compiled.matches;
      selectorKeys = compiled.keys;
    }
    const tiered = levels.map((l, i) => ({ ...l, tier: i + 1 }));
    return new PresetStack(tiered, numbered, memberKeys, selector, selectorKeys);
  }

  /** Every tierName this preset can give, with its tier (the numbered family's first few stand for the rest). */
  tierNames(): ReadonlyMap<string, number> {
    const out = new Map<string, number>(this.levels.map((l) => [l.tierName, l.tier]));
    if (this.numbered) for (let n = 0; n < 8; n++) out.set(this.numberedTierName(n), this.numbered.base + n + 1);
    return out;
  }

  /** True when a change of `key` on a Node can change this preset's tree. */
  watches(key: string): boolean {
    return this.selectorKeys.includes(key) || this.isLevelKey(key);
  }

  /** True when `key` is the label of one of the preset's levels (not only of its nodeSelector). */
  isLevelKey(key: string): boolean {
    if (this.levels.some((l) => l.sources.some((s) => s.key === key))) return true;
    return this.numbered !== undefined && numberedTier(key, this.numbered.stem) !== undefined;
  }

  /** The domain a level read from `key` takes from the value `raw`, undefined when it gives none. */
  domainOf(key: string, raw: string): string | undefined {
    const source = this.levels.flatMap((l) => l.sources).find((s) => s.key === key);
    return domainOfValue(raw, source?.take);
  }

  /** The preset would take a Node with these labels (its selector matches and it carries a member key). */
  picks(labels: Labels): boolean {
    if (this.selector && !this.selector(labels)) return false;
    for (const key of this.memberKeys) if (hasLabel(labels, key)) return true;
    if (!this.numbered) return false;
    const stem = this.numbered.stem;
    for (const key in labels) if (numberedTier(key, stem) !== undefined) return true;
    return false;
  }

  /** The chain of domains of a Node the preset picks (`picks`), nearest first, or why its labels do not fit. */
  fit(labels: Labels): NodeFit {
    // Each level's label as the Node carries it, nearest first; undefined where absent.
    const slots: (Slot | undefined)[] = [];
    for (const level of this.levels) slots.push(readLevel(level, labels));
    if (this.numbered) {
      const { stem } = this.numbered;
      let top = 0;
      for (const key in labels) {
        const n = numberedTier(key, stem);
        if (n !== undefined && n > top) top = n;
      }
      for (let n = 0; n <= top; n++) {
        const level = this.numberedLevel(n);
        const key = level.sources[0]!.key;
        slots.push(hasLabel(labels, key) ? { level, key, raw: labelValue(labels, key)! } : undefined);
      }
    }
    const present: number[] = [];
    for (let i = 0; i < slots.length; i++) if (slots[i]) present.push(i);
    if (present.length === 0) return { kind: 'out' };
    const lo = present[0]!;
    const hi = present[present.length - 1]!;
    // Optional levels below the lowest required one (the NVLink level, AWS layer-4, a CoreWeave rack) may be skipped; a
    // hole above it is a gap.
    let floor = 0;
    while (floor < slots.length && !this.required(floor)) floor++;
    for (let i = 0; i < slots.length; i++) {
      if (slots[i]) continue;
      if (this.required(i))
        return {
          kind: 'bad',
          reason: 'missing-level',
          why: `it carries ${present.map((p) => shown(slots[p]!)).join(', ')} but no ${this.keyOf(slots, i)}`,
        };
      if (i > lo && i < hi && i > floor)
        return {
          kind: 'bad',
          reason: 'missing-level',
          why: `it carries ${shown(slots[lo]!)} and ${shown(slots[hi]!)} but no ${this.keyOf(slots, i)} between them`,
        };
    }
    const links: ChainLink[] = [];
    for (const i of present) {
      const { level, key, raw, take } = slots[i]!;
      if (raw === '') return { kind: 'bad', reason: 'empty-value', why: `its ${key} is empty` };
      const value = domainOfValue(raw, take);
      if (value === undefined)
        return {
          kind: 'bad',
          reason: 'bad-value',
          why: `its ${key}=${raw} is not of the form <ClusterUUID>.<CliqueID>`,
        };
      links.push({ key, value, tier: level.tier, tierName: level.tierName, scoped: level.scoped });
    }
    return { kind: 'in', links };
  }

  /** Whether the level at slot `i` must be present; past the fixed levels, the numbered family's tier-0 must. */
  private required(i: number): boolean {
    return i < this.levels.length ? this.levels[i]!.required : i === this.levels.length;
  }

  /** The key (or keys) the level at slot `i` reads, for the messages. */
  private keyOf(slots: readonly (Slot | undefined)[], i: number): string {
    const slot = slots[i];
    if (slot) return slot.key;
    return i < this.levels.length
      ? this.levels[i]!.sources.map((s) => s.key).join(' or ')
      : `${this.numbered!.stem}${i - this.levels.length}`;
  }

  private numberedTierName(n: number): string {
    return this.numbered!.tierNames[n] ?? `tier-${n}`;
  }

  /** The numbered family's level for `<prefix>tier-<n>`, made once. */
  private numberedLevel(n: number): StackLevel {
    let level = this.numberedLevels[n];
    if (!level) {
      const { stem, base } = this.numbered!;
      level = {
        sources: [{ key: `${stem}${n}` }],
        tierName: this.numberedTierName(n),
        required: n === 0,
        scoped: false,
        tier: base + n + 1,
      };
      this.numberedLevels[n] = level;
    }
    return level;
  }
}

/** The level's label as `labels` carry it: its first source present. */
function readLevel(level: StackLevel, labels: Labels): Slot | undefined {
  for (const source of level.sources) {
    const raw = labelValue(labels, source.key);
    if (raw !== undefined) return { level, key: source.key, raw, take: source.take };
  }
  return undefined;
}

const shown = (slot: Slot) => `${slot.key}=${slot.raw}`;

/** N when `key` is `<stem><N>` (stem `<prefix>tier-`) with N written canonically. */
function numberedTier(key: string, stem: string): number | undefined {
  if (!key.startsWith(stem)) return undefined;
  const n = key.slice(stem.length);
  // Two digits are plenty for switch tiers and bound the levels a stray label can make a Node walk.
  return n.length <= 2 && CANONICAL_NUMBER.test(n) ? Number(n) : undefined;
}

/** Why the presets cannot be stacked in this order, or undefined. */
function checkStack(presets: readonly string[]): string | undefined {
  if (presets.length === 0) return 'preset names no family';
  if (presets.length === 1) return undefined;
  const [top, bottom] = presets;
  if (presets.length > 2 || top !== K8S_ZONE_PRESET || bottom === K8S_ZONE_PRESET) {
    return `presets stack only as [${K8S_ZONE_PRESET}, <preset>] (zones above one vendor family), got [${presets.join(', ')}]`;
  }
  if (bottom === NVLINK_PRESET) return undefined;
  if (FAMILIES[bottom!]!.numbered)
    return `${K8S_ZONE_PRESET} cannot sit above ${bottom}, whose depth is open (its tiers would have no fixed number); use ${bottom} alone or select a zone with nodeSelector`;
  return undefined;
}
