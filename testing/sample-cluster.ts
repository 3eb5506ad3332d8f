// The sample cluster of the demo and the end-to-end tests: Nodes labelled in
// a three-tier topology (zone → spine → rack) and the discovery ConfigMap
// that describes it with a label source (Volcano's example configuration,
// extended by a three-tier type).

import { HOSTNAME_LABEL } from '../src/hypernode/model/hypernode-labels.ts';

export const ZONE_LABEL = 'topology.example.com/zone';
export const SPINE_LABEL = 'volcano.sh/hypercluster';
export const RACK_LABEL = 'volcano.sh/hypernode';

export interface SampleShape {
  zones: number;
  spinesPerZone: number;
  racksPerSpine: number;
  nodesPerRack: number;
}

/** 2 zones × 2 spines × 2 racks × 8 nodes = 64 Nodes. */
export const DEMO_SHAPE: SampleShape = { zones: 2, spinesPerZone: 2, racksPerSpine: 2, nodesPerRack: 8 };

export interface SampleNode {
  apiVersion: 'v1';
  kind: 'Node';
  metadata: { name: string; labels: Record<string, string> };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

export function sampleNodes(shape: SampleShape = DEMO_SHAPE): SampleNode[] {
  const nodes: SampleNode[] = [];
  const total = shape.zones * shape.spinesPerZone * shape.racksPerSpine * shape.nodesPerRack;
  const width = String(total - 1).length;
  let i = 0;
  for (let z = 0; z < shape.zones; z++) {
    for (let s = 0; s < shape.spinesPerZone; s++) {
      const spine = z * shape.spinesPerZone + s;
      for (let r = 0; r < shape.racksPerSpine; r++) {
        const rack = spine * shape.racksPerSpine + r;
        for (let n = 0; n < shape.nodesPerRack; n++, i++) {
          const name = `node-${pad(i, width)}`;
          nodes.push({
            apiVersion: 'v1',
            kind: 'Node',
            metadata: {
              name,
              labels: {
                [HOSTNAME_LABEL]: name,
                [ZONE_LABEL]: `zone-${z}`,
                [SPINE_LABEL]: `spine-${spine}`,
                [RACK_LABEL]: `rack-${rack}`,
              },
            },
          });
        }
      }
    }
  }
  return nodes;
}

/** The discovery configuration (key `volcano-controller.conf`) for the sample cluster. */
export const SAMPLE_DISCOVERY_CONFIG = `networkTopologyDiscovery:
  - source: roce            # documented by Volcano, not implemented; disabled
    enabled: false
    interval: 15m
    config:
      endpoint: https://roce-server:9090
      token: token
  - source: label
    enabled: true
    config:
      networkTopologyTypes:
        datacenter:
          - nodeLabel: "${ZONE_LABEL}"
          - nodeLabel: "${SPINE_LABEL}"
          - nodeLabel: "${RACK_LABEL}"
          - nodeLabel: "${HOSTNAME_LABEL}"
`;

export function discoveryConfigMap(namespace: string, conf: string, releaseName = 'volcano') {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${releaseName}-controller-configmap`, namespace },
    data: { 'volcano-controller.conf': conf },
  };
}

/** HyperNodes the sample cluster should produce: one per distinct zone, spine and rack value. */
export function expectedHyperNodeCount(shape: SampleShape = DEMO_SHAPE): number {
  const spines = shape.zones * shape.spinesPerZone;
  return shape.zones + spines + spines * shape.racksPerSpine;
}
