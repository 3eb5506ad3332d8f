// The soak cluster's inputs, kept here as the source of truth: the Nodes
// (4-tier labels: zone → spine → rack → hostname), the discovery
// configuration (label and ufm sources) and the UFM ports. They are written
// to the API server stand-in and the UFM stand-in, re-seeded after an API
// server restart that lost its data (as kubelets re-register their Nodes and
// an operator restores the ConfigMap and Secret), and written to files for
// the offline `render` at the end.

import type { ApiServer } from '../apiserver/index.ts';
import {
  RACK_LABEL,
  SAMPLE_DISCOVERY_CONFIG,
  discoveryConfigMap,
  sampleNodes,
  type SampleNode,
  type SampleShape,
} from '../sample-cluster.ts';
import { computerPorts, type UfmPortJson } from '../ufm-server.ts';
import { discoverySecret } from '../discovery-secret.ts';

export const NS = 'volcano-system';
export const LEASE = 'vc-hypernode-controller-manager';
const CONFIG_MAP = 'volcano-controller-configmap';
const CONFIG_KEY = 'volcano-controller.conf';
const UFM_SECRET = 'ufm-credentials';
/** UFM covers the first Nodes, this many per pair of leaves. */
const NODES_PER_UFM_LEAF_PAIR = 8;
const UFM_LEAF_PAIRS = 4;

export class SoakInputs {
  readonly nodes: SampleNode[];
  readonly ufmPorts: UfmPortJson[];
  /** Rack label values no Node carries any more: their HyperNodes are to go. */
  readonly retiredRacks = new Set<string>();
  private readonly byName = new Map<string, SampleNode>();

  constructor(
    readonly shape: SampleShape,
    private readonly ufmEndpoint: string,
    private readonly ufmCredentials: { username: string; password: string },
  ) {
    this.nodes = sampleNodes(shape);
    for (const n of this.nodes) this.byName.set(n.metadata.name, n);
    this.ufmPorts = Array.from({ length: UFM_LEAF_PAIRS }, (_, k) =>
      computerPorts(
        this.nodes.slice(k * NODES_PER_UFM_LEAF_PAIR, (k + 1) * NODES_PER_UFM_LEAF_PAIR).map((n) => n.metadata.name),
        [`leaf${2 * k}`, `leaf${2 * k + 1}`],
      ),
    ).flat();
  }

  /** The discovery document: the sample label source (4 tiers) and a ufm source polling every 2 s. */
  config(variant = 0): string {
    // A valid reload changes the text, not the meaning: a comment and the disabled roce entry's interval.
    const base =
      variant === 0
        ? SAMPLE_DISCOVERY_CONFIG
        : `# reloaded ${variant}\n${SAMPLE_DISCOVERY_CONFIG.replace('interval: 15m', `interval: ${15 + variant}m`)}`;
    return `${base}  - source: ufm
    enabled: true
    interval: 2s
    credentials:
      secretRef: {name: ${UFM_SECRET}, namespace: ${NS}}
    config:
      endpoint: ${this.ufmEndpoint}
      insecureSkipVerify: true
`;
  }

  /** Writes every input into the store: at start, and after a restart that lost the data. */
  seed(api: ApiServer, configText = this.config()): void {
    if (!api.store.get('namespaces', NS))
      api.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    api.store.apply(
      discoverySecret(NS, UFM_SECRET, this.ufmCredentials, { endpoints: [this.ufmEndpoint], insecureSkipVerify: true }),
    );
    api.store.apply(discoveryConfigMap(NS, configText));
    for (const n of this.nodes) api.store.apply(structuredClone(n));
  }

  setConfig(api: ApiServer, text: string): void {
    const cm = api.store.get('configmaps', CONFIG_MAP, NS) as { data?: Record<string, string> };
    api.store.update({ ...cm, data: { [CONFIG_KEY]: text } });
  }

  private racks(): Map<string, SampleNode[]> {
    const racks = new Map<string, SampleNode[]>();
    for (const n of this.nodes) {
      const rack = n.metadata.labels[RACK_LABEL]!;
      racks.set(rack, [...(racks.get(rack) ?? []), n]);
    }
    return racks;
  }

  /** The other racks of the same spine that still hold Nodes. */
  private siblings(rack: string, racks: Map<string, SampleNode[]>): string[] {
    const index = Number(rack.slice('rack-'.length));
    const first = index - (index % this.shape.racksPerSpine);
    return Array.from({ length: this.shape.racksPerSpine }, (_, i) => `rack-${first + i}`).filter(
      (r) => r !== rack && racks.has(r),
    );
  }

  private move(api: ApiServer, node: SampleNode, rack: string): void {
    node.metadata.labels[RACK_LABEL] = rack;
    const stored = api.store.get('nodes', node.metadata.name) as SampleNode | undefined;
    if (stored)
      api.store.update({
        ...stored,
        metadata: { ...stored.metadata, labels: { ...stored.metadata.labels, [RACK_LABEL]: rack } },
      });
  }

  /**
   * Moves one Node to another rack of its spine, never emptying a rack. Returns the Node's name, or undefined when no
   * move is possible.
   */
  relabel(api: ApiServer, pick: number): string | undefined {
    const racks = this.racks();
    const candidates = this.nodes.filter(
      (n) =>
        racks.get(n.metadata.labels[RACK_LABEL]!)!.length > 1 &&
        this.siblings(n.metadata.labels[RACK_LABEL]!, racks).length > 0,
    );
    if (candidates.length === 0) return undefined;
    const node = candidates[Math.floor(pick * candidates.length)]!;
    const targets = this.siblings(node.metadata.labels[RACK_LABEL]!, racks);
    this.move(api, node, targets[Math.floor(((pick * 7919) % 1) * targets.length)]!);
    return node.metadata.name;
  }

  /** Moves every Node of one rack into a sibling rack: the rack's HyperNode is then to be deleted. */
  retireRack(api: ApiServer, pick: number): string | undefined {
    const racks = this.racks();
    const retirable = [...racks.keys()].filter((r) => this.siblings(r, racks).length > 0);
    if (retirable.length === 0) return undefined;
    const rack = retirable[Math.floor(pick * retirable.length)]!;
    const target = this.siblings(rack, racks)[0]!;
    // Recorded before the first move: from then on a delete of its HyperNode is justified.
    this.retiredRacks.add(`${RACK_LABEL}=${rack}`);
    for (const n of racks.get(rack)!) this.move(api, n, target);
    return rack;
  }
}
