// A dry run of discovery, for `render` and `plan`: what the controller would
// write for a configuration, a set of Nodes and the HyperNodes already there,
// decided by the controller's own code and written nowhere. Each enabled
// source's real discoverer runs once over caches of the given objects, and its
// first snapshot goes through what the controller applies before a write (the
// objects a create sends, the snapshot checks, the ownership rule, the
// mass-delete guard, nodeCount). The caller supplies the objects and the
// registry (captured answers for render, the real sources for plan); what the
// sources report is said at a preview's level (a host left out is a warning).

import type { InputPolicy } from '../model/input-policy.ts';
import type { Clock } from '../../kube/clock.ts';
import type { Informer } from '../../kube/types.ts';
import { StaticInformer } from '../../kube/static-informer.ts';
import type { Logger } from '../../log.ts';
import { abortReason } from '../../util/abort.ts';
import type {
  ConfigMapReader,
  DiscoveryEntry,
  DiscoveryProblems,
  FabricHealthReporter,
  LabelHoldReporter,
  SecretClient,
  Snapshot,
  TopologyObjectClient,
} from '../model/contracts.ts';
import type { DiscoveredHyperNode, HyperNode, NodeMeta } from '../model/hypernode-types.ts';
import { NETWORK_TOPOLOGY_SOURCE_LABEL, isOwnedBy, sourceOf } from '../model/hypernode-labels.ts';
import { enabledSources, entryOf, sourceEntry, type DiscoveryConfig } from '../config/loader.ts';
import { entryLocation } from '../config/entry.ts';
import { deleteGuard, heldDeletesMessage } from '../reconcile/delete-guard.ts';
import { lookupDiscoverer, type DiscovererRegistry } from '../discovery/registry.ts';
import { dependsOnNodes, nodeCount } from '../model/member-selector.ts';
import { desiredByName } from '../reconcile/desired-objects.ts';
import { keptHyperNodes, type KeptTopology } from '../reconcile/kept-topology.ts';
import { describeViolations, validateSnapshot } from '../reconcile/snapshot-validation.ts';
import { errorMessage, wrapError } from '../../util/error-message.ts';
import { compareBytes } from '../../util/compare-bytes.ts';

/** How long one source may take to produce its first snapshot offline. */
export const PREVIEW_SOURCE_DEADLINE_MS = 30_000;

export interface PreviewInput {
  readonly config: DiscoveryConfig;
  readonly nodes: readonly NodeMeta[];
  /** HyperNodes already in the cluster: names are adopted and ownership respected as the controller would. */
  readonly existing: readonly HyperNode[];
}

export interface PreviewDeps {
  readonly registry: DiscovererRegistry;
  readonly secrets: SecretClient;
  /** ConfigMaps a source reads its input from (plan reads the cluster's; render has none). */
  readonly configMaps?: ConfigMapReader;
  /** Reads the cluster's Kueue and KAI Topology objects (plan); without it none is planned. */
  readonly topologyObjects?: Pick<TopologyObjectClient, 'servedVersions' | 'servedSchema' | 'list'>;
  /**
   * The label memory's reporter (plan: seeded from the cluster's HyperNodes, as a restarted controller is); without
   * it a missing label moves its Node at once.
   */
  readonly labelHolds?: LabelHoldReporter;
  /**
   * Where the fabric sources report what their one poll found of their Nodes' links (plan: the taints a link
   * back removes); without it nothing is reported. One poll remembers nothing, so no link is put back.
   */
  readonly fabricHealth?: FabricHealthReporter;
  readonly logger: Logger;
  readonly deadlineMs?: number;
  /** What the configuration may reach; absent: the executable's defaults (DEFAULT_INPUT_POLICY). */
  readonly inputPolicy?: InputPolicy;
}

export interface Preview {
  /**
   * The HyperNodes as the controller would keep them, sorted by tier, then
   * name: what the enabled sources would write, and those whose delete its
   * mass-delete guard would hold (every output follows this tree).
   */
  readonly hyperNodes: DiscoveredHyperNode[];
  /**
   * Each source's tree as the controller's reconciler would keep it, in configuration order: what the exports follow
   * (the Slurm files, as the controller's Node labels and Topology objects do).
   */
  readonly kept: readonly KeptTopology[];
  /** Things the controller would log and skip (names held by objects a source does not own, deletes it would hold). */
  readonly warnings: string[];
}

export interface SourceFailure {
  readonly source: string;
  readonly message: string;
}

/** One source's checked snapshot as the reconciler would receive it, with its delete guard setting. */
export interface SourceSnapshot {
  readonly desired: ReadonlyMap<string, DiscoveredHyperNode>;
  readonly maxDeletePercent: number;
  /** What the source's discoverer warned about (the controller's Warning Events), for `warning:` lines. */
  readonly warnings: readonly string[];
}

/** One or more sources would publish nothing (or something the checks refuse). */
export class PreviewError extends Error {
  /**
   * @param warnings what every source warned about before the run failed (a
   * refused neighbour, a Node left out), as the controller's Warning Events
   * would say it: often the reason of the failure.
   */
  constructor(
    readonly failures: readonly SourceFailure[],
    readonly warnings: readonly string[] = [],
  ) {
    super(failures.map((f) => `source "${f.source}": ${f.message}`).join('\n'));
    this.name = 'PreviewError';
  }
}

/**
 * Offline there is nothing to wait for: debounces and backoffs elapse at once,
 * on the next turn of the event loop so that loops still yield.
 */
const noWaitClock: Clock = {
  now: () => Date.now(),
  sleep: (_ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      setImmediate(() => (signal?.aborted ? reject(abortReason(signal)) : resolve()));
    }),
};

/** Runs every enabled source once; throws PreviewError naming each failing source. */
export async function previewDiscovery(input: PreviewInput, deps: PreviewDeps): Promise<Preview> {
  const hyperNodes = new StaticInformer(input.existing);
  const warnings: string[] = [];
  const out: DiscoveredHyperNode[] = [];
  const kept: KeptTopology[] = [];
  for (const [source, { desired, maxDeletePercent, warnings: discovered }] of await discoverSources(input, deps)) {
    warnings.push(...discovered);
    const held = heldDeletes(source, desired, input.existing, maxDeletePercent);
    if (held) warnings.push(`${held.why}. The controller would keep: ${[...held.names].join(', ')}`);
    kept.push({
      source,
      hyperNodes: keptHyperNodes(desired.values(), held?.names ?? [], (name) => hyperNodes.get(name)),
      heldDeletes: held,
      heldNodes: [], // one run remembers no label: render keeps no Node in place
    });
    for (const hn of keptHyperNodes([], held?.names ?? [], (name) => hyperNodes.get(name)))
      out.push(withStatus(hn, input.nodes));
    for (const [name, want] of desired) {
      const current = hyperNodes.get(name);
      const owner = sourceOf(current);
      if (current && owner !== source) {
        warnings.push(
          `HyperNode ${name} exists and is ${owner ? `owned by source "${owner}"` : `not labelled ${NETWORK_TOPOLOGY_SOURCE_LABEL}`}; source "${source}" would leave it alone`,
        );
        continue;
      }
      out.push(withStatus(current ? adopted(current, want) : want, input.nodes));
    }
  }
  out.sort((a, b) => a.spec.tier - b.spec.tier || compareBytes(a.metadata.name, b.metadata.name));
  return { hyperNodes: out, kept, warnings };
}

/**
 * Runs every enabled source once and returns, per source in configuration
 * order, the objects the reconciler would be asked to write (desiredByName of
 * its first snapshot, checked). The UFM source talks to UFM unless the
 * registry's factory serves captured bodies. Throws PreviewError naming each
 * failing source, and a name two sources both produce.
 */
export async function discoverSources(input: PreviewInput, deps: PreviewDeps): Promise<Map<string, SourceSnapshot>> {
  const nodes = new StaticInformer(input.nodes);
  const hyperNodes = new StaticInformer(input.existing);
  const sources = [...new Set(enabledSources(input.config))];
  const outcomes = await Promise.all(
    sources.map(async (source) => {
      const warnings: string[] = [];
      try {
        const result = sourceEntry(input.config, source)!;
        const entry = entryOf(result);
        if (!entry) throw new Error('error' in result ? result.error : `invalid entry for source ${source}`);
        // The discoverer's log lines (unknown keys of its config) name the entry they come from, with its line.
        const logged = { ...deps, logger: deps.logger.with({ entry: entryLocation(result) }) };
        const desired = checkedSnapshot(
          source,
          await firstSnapshot(entry, nodes, hyperNodes, logged, (message) =>
            warnings.push(`source "${source}": ${message}`),
          ),
        );
        return { source, entry, desired, warnings };
      } catch (err) {
        return { source, failure: errorMessage(err), warnings };
      }
    }),
  );
  const failures: SourceFailure[] = [];
  const producedBy = new Map<string, string>();
  const bySource = new Map<string, SourceSnapshot>();
  for (const outcome of outcomes) {
    if (outcome.failure !== undefined) {
      failures.push({ source: outcome.source, message: outcome.failure });
      continue;
    }
    for (const name of outcome.desired.keys()) {
      const other = producedBy.get(name);
      if (other !== undefined)
        failures.push({
          source: outcome.source,
          message: `HyperNode ${name} is also produced by source "${other}"; only one of them could own it`,
        });
      else producedBy.set(name, outcome.source);
    }
    bySource.set(outcome.source, {
      desired: outcome.desired,
      maxDeletePercent: outcome.entry.maxDeletePercent,
      warnings: outcome.warnings,
    });
  }
  if (failures.length > 0)
    throw new PreviewError(
      failures,
      outcomes.flatMap((o) => o.warnings),
    );
  return bySource;
}

/** The snapshot as the reconciler would write it, refused when it breaks a snapshot rule. */
function checkedSnapshot(source: string, snapshot: Snapshot): Map<string, DiscoveredHyperNode> {
  const desired = desiredByName(source, snapshot);
  const violations = validateSnapshot([...desired.values()]);
  if (violations.length > 0) {
    const objects = [...new Set(violations.flatMap((v) => v.objects))];
    throw new Error(
      `the snapshot would not be written (${objects.join(', ')}):\n${describeViolations(violations)}\nThe controller refuses it whole: the source's HyperNodes, its Node labels and its Kueue and KAI Topology objects stay as they are (no Topology is replaced or deleted, even with its export turned off) until a snapshot passes`,
    );
  }
  return desired;
}

/** The controller's mass-delete guard over the existing objects `source` owns: what it would hold, if anything. */
function heldDeletes(
  source: string,
  desired: ReadonlyMap<string, HyperNode>,
  existing: readonly HyperNode[],
  maxDeletePercent: number,
): KeptTopology['heldDeletes'] {
  const owned = existing.filter((hn) => isOwnedBy(hn, source)).map((hn) => hn.metadata.name);
  const doomed = owned.filter((name) => !desired.has(name)).sort(compareBytes);
  if (!deleteGuard(owned.length, doomed.length, maxDeletePercent).hold) return undefined;
  return { names: new Set(doomed), why: heldDeletesMessage(source, owned.length, doomed.length, maxDeletePercent) };
}

/** Starts the source's discoverer, takes its first snapshot or first reported failure, and stops it. */
async function firstSnapshot(
  entry: DiscoveryEntry,
  nodes: Informer<NodeMeta>,
  hyperNodes: Informer<HyperNode>,
  deps: PreviewDeps,
  warn: (message: string) => void,
): Promise<Snapshot> {
  const done = new AbortController();
  let reportFailure!: (err: Error) => void;
  const failed = new Promise<never>((_, reject) => (reportFailure = reject));
  // Handled by the race below; a failure reported before or after it must not count as unhandled.
  failed.catch(() => {});
  const problems: DiscoveryProblems = {
    failed: (what, err) => reportFailure(new Error(`${what}: ${errorMessage(err)}`)),
    recovered() {},
    warning: (_reason, message) => warn(message),
    // The controller logs this at info; here it is why a Node is missing from the output.
    leftOut: (message, kv) => deps.logger.warn(message, { source: entry.source, ...kv }),
  };
  const factory = lookupDiscoverer(deps.registry, entry.source);
  const discoverer = await factory(entry, {
    problems,
    nodes,
    hyperNodes,
    secrets: deps.secrets,
    configMaps: deps.configMaps,
    ...(deps.labelHolds ? { labelHolds: deps.labelHolds } : {}),
    ...(deps.fabricHealth ? { fabricHealth: deps.fabricHealth } : {}),
    clock: noWaitClock,
    logger: deps.logger,
    // A preview has no second try: a worker's throw is the source's failure.
    workerErrors: () => (_key, err) => problems.failed('Discovery worker failed', err),
    ...(deps.inputPolicy ? { inputPolicy: deps.inputPolicy } : {}),
  }).catch((err) => {
    throw wrapError('failed to create discoverer', err);
  });
  const deadlineMs = deps.deadlineMs ?? PREVIEW_SOURCE_DEADLINE_MS;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`produced no snapshot within ${deadlineMs} ms`)), deadlineMs);
  });
  try {
    const output = await discoverer.start().catch((err) => {
      throw wrapError('failed to start discoverer', err);
    });
    const next = await Promise.race([output.recv(done.signal), failed, deadline]);
    if (next.done) throw new Error('stopped without producing a snapshot');
    return next.value;
  } finally {
    clearTimeout(timer);
    done.abort();
    await discoverer.stop();
  }
}

/** What an update of an adopted object sends: the cached labels and annotations with the desired ones over them. */
function adopted(current: HyperNode, want: DiscoveredHyperNode): DiscoveredHyperNode {
  const metadata = { ...want.metadata, labels: { ...current.metadata.labels, ...want.metadata.labels } };
  if (current.metadata.annotations || want.metadata.annotations)
    metadata.annotations = { ...current.metadata.annotations, ...want.metadata.annotations };
  return { ...want, metadata };
}

/**
 * The object with status.nodeCount as the status writer would write it (absent
 * when 0, as Go omits it), its fields in the order kubectl prints them.
 */
function withStatus(hn: DiscoveredHyperNode, nodes: readonly NodeMeta[]): DiscoveredHyperNode {
  const count = nodeCount(hn, dependsOnNodes(hn) ? nodes : []);
  const { apiVersion, kind, metadata, spec, ...rest } = hn;
  return { apiVersion, kind, metadata, spec, ...rest, ...(count > 0 ? { status: { nodeCount: count } } : {}) };
}
