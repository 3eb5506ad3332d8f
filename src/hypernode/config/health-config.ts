// The top-level `health` mapping of the discovery configuration (docs/health.md):
// which HyperNode conditions the controller maintains. Ours: Volcano's
// configuration has no such key. Read with the rest of the document, so a
// broken `health` fails the load like broken YAML (DiscoveryConfigInvalid) and
// the running settings stay.

import { isKubernetesReservedKey, isQualifiedName } from '../../kube/name-validation.ts';
import { durationFromMs, durationToMs, formatDuration, parseDuration } from '../../util/go-duration.ts';
import { isMapping } from '../../util/is-mapping.ts';
import { unknownKeysProblem } from './unknown-keys.ts';
import { quoteInput } from '../../util/input-fragment.ts';
import { FABRIC_TAINT_KEY } from '../model/hypernode-labels.ts';

export interface HealthSettings {
  /** NodesReady from full Node objects (a second, full Node watch); off by default. */
  readonly nodes: boolean;
  /** FabricHealthy on the HyperNodes of the fabric sources (ufm, lldp, graph, ibnetdiscover); on by default. */
  readonly fabric: boolean;
  /**
   * How long a link missing since the last good poll keeps its host or switch
   * where it was (FabricHealthy=False naming it) before the topology follows;
   * 0 applies a vanished link at once, as before fabric health.
   */
  readonly linkGracePeriodMs: number;
  /**
   * How long a Node that lost a label placing it (a level label, the NVLink
   * label) keeps its place (TopologyLabelsPresent=False naming it) before the
   * topology follows; 0 applies a vanished label at once, as before.
   */
  readonly labelGracePeriodMs: number;
  /**
   * The Node taint of a host cut off from its fabric (every link missing for
   * `afterMs`); absent: no Node is tainted, and the taints the controller set
   * are removed.
   */
  readonly taint?: FabricTaintSettings;
  /**
   * The share of the Nodes a source's fabrics connect, in percent, that may
   * carry the taint at once; past it nothing new is tainted.
   */
  readonly maxTaintPercent: number;
}

/** The effects a fabric taint may have: both keep new pods away and leave running ones alone. */
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule'] as const;
export type FabricTaintEffect = (typeof TAINT_EFFECTS)[number];

/** `health.taint` (docs/health.md, "Node taint"). */
export interface FabricTaintSettings {
  /** The taint's key; the controller adds and removes taints of this key only. */
  readonly key: string;
  readonly effect: FabricTaintEffect;
  /** How long every link of a host must have been missing before its Node is tainted. */
  readonly afterMs: number;
}

/** A host rebooting or a NIC reset takes minutes; a cable pulled for good shows in the topology after half an hour. */
export const DEFAULT_LINK_GRACE_PERIOD_MS = 30 * 60_000;

/**
 * The agents that write topology labels come back within this with room to
 * spare: a GPU DRA driver, GPU Feature Discovery or NFD pod restarted by its
 * DaemonSet is back in seconds to a few minutes (an image pull included), and
 * a GPU driver upgrade, whose new driver image is pulled and kernel module
 * loaded before those agents write again, takes 5 to 15 minutes a Node.
 * Reasoning in docs/health.md, "Label memory".
 */
export const DEFAULT_LABEL_GRACE_PERIOD_MS = 30 * 60_000;

/**
 * A host whose every cable is gone for two minutes is not rebooting through
 * a link flap (a port bounce, a switch failover, an LLDP entry aging out:
 * seconds); two minutes is also what a scheduler needs to stop placing new
 * multi-node jobs on it before the next wave of them lands.
 */
export const DEFAULT_TAINT_AFTER_MS = 2 * 60_000;

/**
 * What one fabric answer may taint at most. A host loses every link alone
 * (its power, its NICs, its cable bundle), a handful at a time; a leaf
 * switch of a single-rail fabric takes its 20 to 40 hosts with it, under 10 %
 * of any fabric of 400 hosts or more; more at once is a fabric-wide event or
 * a fabric manager answering with half the fabric, where tainting would take
 * a tenth of the cluster's capacity away for what may be a wrong answer.
 * Reasoning in docs/health.md, "Node taint".
 */
export const DEFAULT_MAX_TAINT_PERCENT = 10;

export const DEFAULT_HEALTH: HealthSettings = Object.freeze({
  nodes: false,
  fabric: true,
  linkGracePeriodMs: DEFAULT_LINK_GRACE_PERIOD_MS,
  labelGracePeriodMs: DEFAULT_LABEL_GRACE_PERIOD_MS,
  maxTaintPercent: DEFAULT_MAX_TAINT_PERCENT,
});

const HEALTH_KEYS = ['nodes', 'fabric', 'linkGracePeriod', 'labelGracePeriod', 'taint', 'maxTaintPercent'];
const TAINT_KEYS = ['key', 'effect', 'after'];

/** Decodes `health` (absent or null: the defaults). Throws an error naming the key to change. */
export function parseHealth(value: unknown): HealthSettings {
  if (value === undefined || value === null) return DEFAULT_HEALTH;
  if (!isMapping(value))
    throw new Error('failed to parse config: health must be a mapping, e.g. "health: {nodes: true}"');
  const unknown = unknownKeysProblem(value, HEALTH_KEYS, 'health');
  if (unknown) throw new Error(`failed to parse config: ${unknown}`);
  const flag = (key: 'nodes' | 'fabric'): boolean => {
    const v = value[key];
    if (v === undefined || v === null) return DEFAULT_HEALTH[key];
    if (typeof v !== 'boolean')
      throw new Error(`failed to parse config: health.${key} must be true or false, got ${quoteInput(v)}`);
    return v;
  };
  const linkGracePeriodMs = duration('linkGracePeriod', value.linkGracePeriod, DEFAULT_LINK_GRACE_PERIOD_MS);
  const taint = parseTaint(value.taint, linkGracePeriodMs);
  return Object.freeze({
    nodes: flag('nodes'),
    fabric: flag('fabric'),
    linkGracePeriodMs,
    labelGracePeriodMs: duration('labelGracePeriod', value.labelGracePeriod, DEFAULT_LABEL_GRACE_PERIOD_MS),
    ...(taint ? { taint } : {}),
    maxTaintPercent: percent(value.maxTaintPercent),
  });
}

/** `health.taint` (absent or null: off; a mapping, `{}` included: on). */
function parseTaint(value: unknown, linkGracePeriodMs: number): FabricTaintSettings | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isMapping(value))
    throw new Error(
      `failed to parse config: health.taint must be a mapping, e.g. "taint: {key: ${FABRIC_TAINT_KEY}, effect: NoSchedule, after: 2m}"`,
    );
  const unknown = unknownKeysProblem(value, TAINT_KEYS, 'health.taint');
  if (unknown) throw new Error(`failed to parse config: ${unknown}`);
  const key = value.key ?? FABRIC_TAINT_KEY;
  if (typeof key !== 'string' || !isQualifiedName(key))
    throw new Error(
      `failed to parse config: health.taint.key must be a taint key such as "${FABRIC_TAINT_KEY}" (an optional DNS prefix and "/", then at most 63 letters, digits, "-", "_" or "."), got ${quoteInput(key)}`,
    );
  if (isKubernetesReservedKey(key))
    throw new Error(
      `failed to parse config: health.taint.key ${quoteInput(key)} is under a prefix Kubernetes keeps for its own components (kubernetes.io, k8s.io), ` +
        `whose taints the controller must never take for its own; use a key of your domain or "${FABRIC_TAINT_KEY}"`,
    );
  const effect = value.effect ?? 'NoSchedule';
  if (effect === 'NoExecute')
    throw new Error(
      'failed to parse config: health.taint.effect NoExecute is refused: it would evict the running pods of every Node whose links are missing, ' +
        'and a switch reboot or a reseated cable would kill the jobs on its hosts; use NoSchedule (no new pods) or PreferNoSchedule (new pods avoid the Node)',
    );
  if (typeof effect !== 'string' || !(TAINT_EFFECTS as readonly string[]).includes(effect))
    throw new Error(
      `failed to parse config: health.taint.effect must be NoSchedule or PreferNoSchedule, got ${quoteInput(effect)}`,
    );
  const afterMs = duration('taint.after', value.after, DEFAULT_TAINT_AFTER_MS);
  if (afterMs >= linkGracePeriodMs)
    throw new Error(
      `failed to parse config: health.taint.after (${formatDuration(durationFromMs(afterMs))}) must be shorter than health.linkGracePeriod (${formatDuration(durationFromMs(linkGracePeriodMs))}): ` +
        'a link missing for the grace period is forgotten and its host leaves the topology, so no host could ever be tainted; lower taint.after or raise linkGracePeriod',
    );
  return Object.freeze({ key, effect: effect as FabricTaintEffect, afterMs });
}

function percent(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_MAX_TAINT_PERCENT;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 100)
    throw new Error(
      `failed to parse config: health.maxTaintPercent must be an integer from 0 to 100 (the share of the Nodes a source's fabrics connect, in percent, that may be tainted at once), got ${quoteInput(v)}`,
    );
  return v;
}

function duration(key: string, v: unknown, defaultMs: number): number {
  if (v === undefined || v === null) return defaultMs;
  const bad = () =>
    new Error(`failed to parse config: health.${key} must be a duration such as "30m" or "0s", got ${quoteInput(v)}`);
  if (typeof v !== 'string') throw bad();
  let ms: number;
  try {
    ms = durationToMs(parseDuration(v));
  } catch (err) {
    throw new Error(bad().message, { cause: err });
  }
  if (ms < 0) throw bad();
  return ms;
}
