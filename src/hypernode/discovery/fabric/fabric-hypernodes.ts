// The fabric layer's entry point: one fabric's graph in, its HyperNodes out.
// Groups come from fabric-levels.ts; names come from content, never from
// positions: every group, the top one included, is named
// `<fabric>-<tier name>-<lowest id among its own switches>`, which stays when
// the group grows. Adding a scalable unit therefore adds groups and renames
// none, even when it adds a tier (a lone spine group that gains a sibling
// keeps its name; the new core group gets a new one). Groups without a mapped
// host below them are left out. Each HyperNode also carries the switches'
// names for people (FABRIC_SWITCHES_ANNOTATION): a name may change without
// renaming the HyperNode, which then only updates the annotation.

import type { Logger } from '../../../log.ts';
import { buildMembers, buildWithTierName } from '../../model/hypernode-builders.ts';
import type { Snapshot } from '../../model/contracts.ts';
import { FABRIC_SWITCHES_ANNOTATION, NETWORK_TOPOLOGY_SOURCE_LABEL } from '../../model/hypernode-labels.ts';
import type { FabricGraph } from './fabric-graph.ts';
import { fabricLevelsSteps, type FabricGroup, type FabricLevels, type FabricProblem } from './fabric-levels.ts';
import type { HostMapper } from './host-mapping.ts';
import { runWhole, type SlicedWork } from '../../../util/sliced-work.ts';

const TIER_NAMES = ['leaf', 'spine', 'core'];
/** A DNS-1123 label, short enough to leave room in HyperNode names for the tier and a 16-digit switch id. */
const FABRIC_NAME = /^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/;

/** Whether `name` can prefix a fabric's HyperNode names: at most 40 lower-case letters, digits and '-'. */
export function isFabricName(name: string): boolean {
  return FABRIC_NAME.test(name);
}

function tierName(level: number): string {
  return TIER_NAMES[level - 1] ?? `tier${level}`;
}

/** What a fabric's HyperNodes are called and labelled. */
export interface FabricNaming {
  /** Prefix of every name; also what the source's own fabric label holds. */
  readonly fabric: string;
  /** The value of `volcano.sh/network-topology-source`. */
  readonly source: string;
  /** Further labels, after the source label (e.g. the source's fabric label). */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * The value of FABRIC_SWITCHES_ANNOTATION for a group's switches (sorted ids):
 * the name of the first, the one the HyperNode is named after, falling back to
 * its id when the fabric gives none, and how many more the group holds.
 */
function fabricSwitchesText(switches: readonly string[], nameOf: ReadonlyMap<string, string>): string {
  const first = switches[0]!;
  const name = nameOf.get(first) || first;
  return switches.length > 1 ? `${name} +${switches.length - 1}` : name;
}

/**
 * The HyperNodes of the levels' groups that have a mapped host below them, and which one holds each switch; a step a
 * group.
 */
function* buildFabricSnapshot(
  input: FabricInput,
  levels: FabricLevels,
): SlicedWork<{ snapshot: Snapshot; switchHyperNodes: Map<string, string> }> {
  const { graph, mapHost, logger, ...naming } = input;
  const switchNames = new Map(graph.switches.map((s) => [s.id, s.name]));
  const labels = { [NETWORK_TOPOLOGY_SOURCE_LABEL]: naming.source, ...naming.labels };
  const named = new Map<FabricGroup, string>();
  const snapshot: Snapshot = [];
  const switchHyperNodes = new Map<string, string>();
  for (const groups of levels.levels) {
    for (const g of groups) {
      yield;
      const name = `${naming.fabric}-${tierName(g.level)}-${g.switches[0]}`;
      const members =
        g.level === 1
          ? buildMembers([...new Set(g.hosts.map(mapHost).filter((n): n is string => n !== undefined))], 'Node')
          : buildMembers(
              g.children.flatMap((c) => named.get(c) ?? []),
              'HyperNode',
            );
      if (members.length === 0) continue;
      named.set(g, name);
      for (const id of g.switches) switchHyperNodes.set(id, name);
      logger.v(4).info('Created fabric HyperNode', { name, tier: g.level, members: members.length });
      const hn = buildWithTierName(name, g.level, tierName(g.level), members, labels);
      hn.metadata.annotations = { [FABRIC_SWITCHES_ANNOTATION]: fabricSwitchesText(g.switches, switchNames) };
      snapshot.push(hn);
    }
  }
  return { snapshot, switchHyperNodes };
}

export interface FabricInput extends FabricNaming {
  readonly graph: FabricGraph;
  readonly mapHost: HostMapper;
  /** See FabricLevelOptions: hosts two leaves must share to join one group. */
  readonly minSharedHosts?: number;
  readonly logger: Logger;
}

export interface FabricHyperNodes {
  readonly snapshot: Snapshot;
  /** Hosts cabled to a leaf, Node or not: zero means the source saw no usable host at all. */
  readonly hostCount: number;
  /** Every host of a leaf group, for the source's report of hosts that match no Node. */
  readonly leafHosts: readonly string[];
  readonly problems: readonly FabricProblem[];
  /**
   * Switch id → the HyperNode whose group holds it (switches of groups without a Node are absent), for fabric health.
   */
  readonly switchHyperNodes: ReadonlyMap<string, string>;
}

/** One fabric's HyperNodes from its graph, with what the layer could not place. */
export const fabricHyperNodes = (input: FabricInput): FabricHyperNodes => runWhole(fabricHyperNodesSteps(input));

/** fabricHyperNodes as sliced work (sliced-work.ts): the controller builds a large fabric between turns of the loop. */
export function* fabricHyperNodesSteps(input: FabricInput): SlicedWork<FabricHyperNodes> {
  const levels = yield* fabricLevelsSteps(input.graph, { minSharedHosts: input.minSharedHosts });
  const { snapshot, switchHyperNodes } = yield* buildFabricSnapshot(input, levels);
  return {
    snapshot,
    switchHyperNodes,
    hostCount: levels.hostCount,
    leafHosts: levels.levels[0]!.flatMap((g) => g.hosts),
    problems: levels.problems,
  };
}
