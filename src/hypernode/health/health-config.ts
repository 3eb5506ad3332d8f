// The top-level `health` mapping of the discovery configuration (docs/health.md):
// which HyperNode conditions the controller maintains. Ours: Volcano's
// configuration has no such key. Read with the rest of the document, so a
// broken `health` fails the load like broken YAML (DiscoveryConfigInvalid) and
// the running settings stay.

import { isMapping } from '../../util/is-mapping.ts';

export interface HealthSettings {
  /** NodesReady from full Node objects (a second, full Node watch); off by default. */
  readonly nodes: boolean;
  /** FabricHealthy on the HyperNodes of the fabric sources (ufm, lldp, graph); on by default. */
  readonly fabric: boolean;
}

export const DEFAULT_HEALTH: HealthSettings = Object.freeze({ nodes: false, fabric: true });

const HEALTH_KEYS: readonly (keyof HealthSettings)[] = ['nodes', 'fabric'];

/** Decodes `health` (absent or null: the defaults). Throws an error naming the key to change. */
export function parseHealth(value: unknown): HealthSettings {
  if (value === undefined || value === null) return DEFAULT_HEALTH;
  if (!isMapping(value)) throw new Error('failed to parse config: health must be a mapping, e.g. "health: {nodes: true}"');
  const unknown = Object.keys(value).filter((k) => !(HEALTH_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) throw new Error(`failed to parse config: health has unknown key ${unknown.map((k) => `"${k}"`).join(', ')} (known keys: ${HEALTH_KEYS.join(', ')})`);
  const flag = (key: keyof HealthSettings): boolean => {
    const v = value[key];
    if (v === undefined || v === null) return DEFAULT_HEALTH[key];
    if (typeof v !== 'boolean') throw new Error(`failed to parse config: health.${key} must be true or false, got ${JSON.stringify(v)}`);
    return v;
  };
  return Object.freeze({ nodes: flag('nodes'), fabric: flag('fabric') });
}
