// Why `render` or `plan` would publish nothing, in words that name what to
// change: a configuration that enables no source (empty, a fragment of the
// docs pasted as the whole file, `enable: true` misspelled), and label keys
// that no Node carries. The controller itself stays quiet about these, as Go
// does; a preview is where someone looks for them.

import { DISCOVERY_KEY, ENTRY_KEYS, entryLocation } from '../hypernode/config/entry.ts';
import { enabledSources, entryOf, sourceEntry, type DiscoveryConfig } from '../hypernode/config/loader.ts';
import { topologyTypes } from '../hypernode/discovery/label/label-config.ts';
import type { NodeMeta } from '../hypernode/model/hypernode-types.ts';
import { LABEL_SOURCE } from '../hypernode/model/hypernode-labels.ts';
import { nullLogger } from '../log.ts';
import { closestWord } from '../util/closest-word.ts';
import { quoteInput } from '../util/input-fragment.ts';

const SKELETON = `${DISCOVERY_KEY}:\n  - source: ${LABEL_SOURCE}\n    enabled: true\n    config: {networkTopologyTypes: …}`;

/** Why `config` enables no source (one paragraph naming what to change), or undefined when it enables one. */
export function noSourceReason(config: DiscoveryConfig): string | undefined {
  if (enabledSources(config).length > 0) return undefined;
  if (!config.topLevelKeys.includes(DISCOVERY_KEY)) {
    const keys = config.topLevelKeys;
    const found =
      keys.length === 0
        ? 'is empty'
        : `has no top-level key ${DISCOVERY_KEY} (its keys: ${keys.join(', ')}; a part of an entry rather than the whole configuration?)`;
    return `the configuration ${found}: it must start with the key ${DISCOVERY_KEY}, a list of sources, e.g.\n${SKELETON}`;
  }
  if (config.entries.length === 0) return `${DISCOVERY_KEY} lists no source: add an entry, e.g.\n${SKELETON}`;
  const why = config.entries.map((r) => {
    const near = r.unknownKeys.filter((k) => closestWord(k, ['enabled']) !== undefined);
    return `${entryLocation(r)} is not enabled${near.length > 0 ? ` (it has ${near.map((k) => quoteInput(k)).join(', ')}, not "enabled"; the keys of an entry are ${ENTRY_KEYS.join(', ')})` : ''}`;
  });
  return `no source is enabled, so nothing would be published: ${why.join('; ')}. Set enabled: true on the entry to preview.`;
}

/** How many of the Nodes carry one label key a label type reads. */
interface KeyCoverage {
  readonly type: string;
  readonly key: string;
  readonly nodes: number;
}

/**
 * For each enabled, valid label entry: how many Nodes carry each label key of its list and profile types (presets pick
 * their keys per Node and are left out).
 */
function labelKeyCoverage(config: DiscoveryConfig, nodes: readonly NodeMeta[]): KeyCoverage[] {
  const entry = entryOf(sourceEntry(config, LABEL_SOURCE));
  if (!entry) return [];
  let types: ReturnType<typeof topologyTypes>;
  try {
    types = topologyTypes(entry.config, nullLogger);
  } catch {
    return []; // the source fails with its own message
  }
  return types.flatMap((t) =>
    [...t.tiers]
      .reverse()
      .map((key) => ({ type: t.name, key, nodes: nodes.filter((n) => n.metadata.labels?.[key] !== undefined).length })),
  );
}

function describeCoverage(coverage: readonly KeyCoverage[], nodes: number): string {
  return coverage.map((c) => `${c.key} (type "${c.type}") on ${c.nodes} of ${nodes} Nodes`).join(', ');
}

/** One warning per label key no Node carries, with what the Nodes do carry; none when every key is on some Node. */
export function unusedLabelKeyWarnings(config: DiscoveryConfig, nodes: readonly NodeMeta[]): string[] {
  const coverage = labelKeyCoverage(config, nodes);
  const unused = coverage.filter((c) => c.nodes === 0);
  if (unused.length === 0) return [];
  return [
    `source "${LABEL_SOURCE}": no Node carries ${unused.map((c) => `${c.key} (type "${c.type}")`).join(', ')}; the HyperNodes of those tiers are left out. Label keys: ${describeCoverage(coverage, nodes.length)}`,
  ];
}

/** Why the enabled sources published no HyperNode at all: the label keys' coverage when a label source ran. */
export function emptyResultReason(config: DiscoveryConfig, nodes: readonly NodeMeta[]): string {
  const coverage = labelKeyCoverage(config, nodes);
  const sources = [...new Set(enabledSources(config))].map((s) => `"${s}"`).join(', ');
  const keys =
    coverage.length > 0
      ? `; label keys: ${describeCoverage(coverage, nodes.length)} (label the Nodes, or fix the nodeLabel keys)`
      : '';
  return `nothing would be published: the enabled sources (${sources}) describe no HyperNode for these ${nodes.length} Nodes${keys}`;
}
