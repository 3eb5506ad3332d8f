// An InfiniBand fabric read from an ibnetdiscover capture (2 units of 4
// hosts on 2 rails, 2 spines) whose Nodes are named after their cloud
// instance, the host name a Node label the source's host mapping reads:
// what the Slurm outputs must name by host, not by Node.

import { stringify } from 'yaml';
import type { NodeMeta } from '../../src/hypernode/model/hypernode-types.ts';
import { addRailFabric, IbFabric, railHostName } from '../../testing/ib-fabric.ts';
import type { ScratchDir } from './scratch-dir.ts';

export const IB_HOST_LABEL = 'example.com/ib-host';

export interface IbHostsByLabel {
  /** The render arguments: config, Nodes and the capture. */
  readonly args: string[];
  /** The fabric's host names, which Slurm knows. */
  readonly hosts: string[];
  /** A Node's host name. */
  readonly hostOf: (node: string) => string;
}

export function ibHostsByLabel(scratch: ScratchDir): IbHostsByLabel {
  const fabric = addRailFabric(new IbFabric(), { units: 2, hostsPerUnit: 4, rails: 2, spines: 2, parallel: 2 });
  const hosts = [1, 2].flatMap((unit) => [1, 2, 3, 4].map((h) => railHostName(unit, h)));
  const capture = scratch.write('compute.txt', fabric.ibnetdiscoverText({ speed: 'NDR', port0: 'enhanced' }));
  const nodes = hosts.map(
    (h, i): NodeMeta => ({ metadata: { name: `i-${(0x2000 + i).toString(16)}`, labels: { [IB_HOST_LABEL]: h } } }),
  );
  const hostOf = new Map(nodes.map((n) => [n.metadata.name, n.metadata.labels![IB_HOST_LABEL]!]));
  const conf = scratch.write(
    'conf.yaml',
    stringify({
      networkTopologyDiscovery: [
        {
          source: 'ibnetdiscover',
          enabled: true,
          config: { fabric: 'compute', hostMapping: { nodeLabel: IB_HOST_LABEL } },
        },
      ],
    }),
  );
  return {
    args: ['--config', conf, '--nodes', scratch.nodesFile(nodes), '--ibnetdiscover-capture', `compute=${capture}`],
    hosts,
    hostOf: (node) => hostOf.get(node)!,
  };
}
