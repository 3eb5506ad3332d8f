// One subnet as an ibnetdiscover output describes it, in the compact form its
// reader builds: nodes numbered 0 … nodeCount-1 in the order their blocks are
// printed, each read through accessors (its strings are made when asked for),
// and the cables as columns of node numbers and ports. Holding a fabric of
// 65,536 HCAs this way takes a few MB instead of an object per node and cable.

import type { IbCableColumns } from './ib-cables.ts';
import type { IbNodeKind, IbNodeTable } from './ib-node-table.ts';

/** Each cable once, printed by both ends; parallel cables are separate. `a` and `b` are node numbers. */
export interface IbLinks {
  readonly count: number;
  readonly a: Int32Array;
  readonly aPort: Uint8Array;
  readonly b: Int32Array;
  readonly bPort: Uint8Array;
}

export class IbSubnet {
  readonly nodeCount: number;
  readonly links: IbLinks;

  /** `order`: the table index of each block, in the order printed; every GUID of the table has a block. */
  constructor(
    private readonly table: IbNodeTable,
    private readonly order: Int32Array,
    cables: IbCableColumns,
  ) {
    this.nodeCount = order.length;
    const numberOf = new Int32Array(table.size);
    for (let n = 0; n < order.length; n++) numberOf[order[n]!] = n;
    for (let c = 0; c < cables.count; c++) {
      cables.a[c] = numberOf[cables.a[c]!]!;
      cables.b[c] = numberOf[cables.b[c]!]!;
    }
    this.links = cables;
  }

  kind(node: number): IbNodeKind {
    return this.table.kind(this.order[node]!)!;
  }

  /** Node GUID, 16 lower-case hex digits. */
  guid(node: number): string {
    return this.table.guid(this.order[node]!);
  }

  /** The node description as printed (a host's is `<hostname> <device>` by rdma-ndd's default). */
  description(node: number): string {
    return this.table.description(this.order[node]!);
  }

  /** A CA's or router's port GUIDs (16 hex digits), as its own block prints them. */
  portGuids(node: number): string[] {
    return this.table.portGuids(this.order[node]!);
  }
}
