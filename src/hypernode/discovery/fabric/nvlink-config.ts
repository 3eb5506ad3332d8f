// The `nvlink` key of every fabric source's config (docs/configuration.md,
// "NVLink domains inside a fabric tree"), decoded in one place so it means the
// same on each, whether the source's tree comes from the fabric layer or from
// a grouping of its own. Its levels and the rule that takes a domain from a
// label value are the label presets' (model/nvlink.ts).

import { isQualifiedName } from '../../../kube/name-validation.ts';
import { isMapping } from '../../../util/is-mapping.ts';
import { refuseUnknownKeys } from '../../config/unknown-keys.ts';
import {
  GPU_CLIQUE_LABEL,
  NVLINK_LEVELS,
  NVLINK_TIER_NAMES,
  type DomainTake,
  type NvlinkLevel,
} from '../../model/nvlink.ts';
import { quoteInput } from '../../../util/input-fragment.ts';

/** The config key, the same in every fabric source. */
export const NVLINK_KEY = 'nvlink';
const NVLINK_MAPPING_KEYS = ['level', 'label'];

/** What the NVLink tier of a fabric source reads. */
export interface NvlinkConfig {
  readonly level: NvlinkLevel;
  /** The Node label whose value names the domain. */
  readonly label: string;
  readonly take: DomainTake;
  /** `nvl-domain` or `nvl-partition`. */
  readonly tierName: string;
}

const SHAPES = `${NVLINK_LEVELS.join(' or ')}, or {level: ${NVLINK_LEVELS.join('|')}, label: <Node label key>}`;

function level(raw: unknown, where: string): NvlinkLevel {
  const found = NVLINK_LEVELS.find((l) => l === raw);
  if (found) return found;
  throw new Error(
    `${where} must be ${NVLINK_LEVELS.join(' or ')} (domain: the NVLink domain, e.g. one NVL72 rack; partition: the fabric manager's partition), got ${quoteInput(raw)}`,
  );
}

/**
 * Validates `config.nvlink`; undefined when absent (no NVLink tier). Throws naming the field; the caller adds its
 * source.
 */
export function parseNvlinkConfig(raw: unknown): NvlinkConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  const where = `config.${NVLINK_KEY}`;
  if (typeof raw === 'string') return nvlinkConfig(level(raw, where), GPU_CLIQUE_LABEL);
  if (!isMapping(raw)) throw new Error(`${where} must be ${SHAPES}, got ${quoteInput(raw)}`);
  refuseUnknownKeys(raw, NVLINK_MAPPING_KEYS, where);
  if (raw.level === undefined) throw new Error(`${where}.level is required: ${NVLINK_LEVELS.join(' or ')}`);
  const lvl = level(raw.level, `${where}.level`);
  const label = raw.label ?? GPU_CLIQUE_LABEL;
  if (typeof label !== 'string' || !isQualifiedName(label)) {
    throw new Error(
      `${where}.label must be a Node label key such as ${GPU_CLIQUE_LABEL} or accelerator.topograph.run/domain, got ${quoteInput(label)}`,
    );
  }
  return nvlinkConfig(lvl, label);
}

function nvlinkConfig(lvl: NvlinkLevel, label: string): NvlinkConfig {
  // The clique label's value always has the clique form; a value without it gives no domain rather than a guessed one.
  const take: DomainTake =
    lvl === 'partition' ? 'whole' : label === GPU_CLIQUE_LABEL ? 'cluster-uuid' : 'cluster-uuid-or-whole';
  return Object.freeze({ level: lvl, label, take, tierName: NVLINK_TIER_NAMES[lvl] });
}
