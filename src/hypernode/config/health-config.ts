// The top-level `health` mapping of the discovery configuration (docs/health.md):
// which HyperNode conditions the controller maintains. Ours: Volcano's
// configuration has no such key. Read with the rest of the document, so a
// broken `health` fails the load like broken YAML (DiscoveryConfigInvalid) and
// the running settings stay.

import { durationToMs, parseDuration } from '../../util/go-duration.ts';
import { isMapping } from '../../util/is-mapping.ts';
import { unknownKeysProblem } from './unknown-keys.ts';
import { quoteInput } from '../../util/input-fragment.ts';

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

export const DEFAULT_HEALTH: HealthSettings = Object.freeze({
  nodes: false,
  fabric: true,
  linkGracePeriodMs: DEFAULT_LINK_GRACE_PERIOD_MS,
  labelGracePeriodMs: DEFAULT_LABEL_GRACE_PERIOD_MS,
});

const HEALTH_KEYS = ['nodes', 'fabric', 'linkGracePeriod', 'labelGracePeriod'];

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
  return Object.freeze({
    nodes: flag('nodes'),
    fabric: flag('fabric'),
    linkGracePeriodMs: gracePeriod('linkGracePeriod', value.linkGracePeriod, DEFAULT_LINK_GRACE_PERIOD_MS),
    labelGracePeriodMs: gracePeriod('labelGracePeriod', value.labelGracePeriod, DEFAULT_LABEL_GRACE_PERIOD_MS),
  });
}

function gracePeriod(key: string, v: unknown, defaultMs: number): number {
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
