// InfiniBand fabrics built by script, in two forms of one model: the net file
// ibsim simulates (testing/ibsim-lab.ts runs the real `ibnetdiscover` on it)
// and the text `ibnetdiscover` prints for it, written here byte for byte in
// its default format for fabrics past ibsim's limits (2,048 nodes, 256
// switches: the benchmark's 65,536 CAs) and for descriptions ibsim cannot
// give twice (firmware defaults, SHARP aggregation nodes). GUIDs are handed
// out as ibsim does, in file order (CAs from 0x100000, a CA's port p at its
// GUID + p; switches from 0x200000), so tests/e2e/ibsim-lab.test.ts holds
// the two forms to each other on a real ibsim.

export interface IbFabricNode {
  readonly kind: 'switch' | 'ca';
  /** Unique in the fabric; the net file's node id. */
  readonly id: string;
  /** The node description ibnetdiscover prints (ibsim: the node id). */
  readonly description: string;
  readonly ports: number;
  readonly guid: bigint;
}

export interface IbFabricCable {
  readonly a: string;
  readonly aPort: number;
  readonly b: string;
  readonly bPort: number;
}

/** How the printed text differs between ibsim and a production fabric. */
export interface IbTextStyle {
  /** `SDR` as ibsim prints, `NDR` for Quantum-2. */
  readonly speed?: string;
  /** `base` (ibsim) or `enhanced` (Quantum switches). */
  readonly port0?: 'base' | 'enhanced';
  readonly vendorId?: string;
  readonly switchDeviceId?: string;
  readonly caDeviceId?: string;
}

const FIRST_CA_GUID = 0x100000n;
const FIRST_SWITCH_GUID = 0x200000n;

const guid16 = (g: bigint) => g.toString(16).padStart(16, '0');
const hexShort = (g: bigint) => g.toString(16);

export class IbFabric {
  readonly nodes = new Map<string, IbFabricNode>();
  readonly cables: IbFabricCable[] = [];
  /** Cabled ports per node. */
  private readonly used = new Map<string, Map<number, IbFabricCable>>();
  private nextCa = FIRST_CA_GUID;
  private nextSwitch = FIRST_SWITCH_GUID;

  /** A switch; `description` defaults to the id. */
  addSwitch(id: string, ports = 64, description = id): this {
    return this.add({ kind: 'switch', id, description, ports, guid: this.nextSwitch++ });
  }

  /** An HCA (a CA): its own node GUID, then one GUID per port. */
  addCa(id: string, ports = 1, description = id): this {
    const guid = this.nextCa;
    this.nextCa += BigInt(ports) + 1n;
    return this.add({ kind: 'ca', id, description, ports, guid });
  }

  private add(node: IbFabricNode): this {
    if (this.nodes.has(node.id)) throw new Error(`node ${node.id} added twice`);
    this.nodes.set(node.id, node);
    this.used.set(node.id, new Map());
    return this;
  }

  /** Cables port `aPort` of `a` to port `bPort` of `b`; a port left out is the node's lowest free one. */
  cable(a: string, b: string, ports: { aPort?: number; bPort?: number } = {}): IbFabricCable {
    const cable = { a, aPort: ports.aPort ?? this.freePort(a), b, bPort: ports.bPort ?? this.freePort(b) };
    for (const [id, port] of [
      [a, cable.aPort],
      [b, cable.bPort],
    ] as const) {
      const used = this.used.get(id);
      if (!used) throw new Error(`no node ${id}`);
      if (used.has(port)) throw new Error(`port ${port} of ${id} is cabled twice`);
      if (port < 1 || port > this.nodes.get(id)!.ports) throw new Error(`${id} has no port ${port}`);
      used.set(port, cable);
    }
    this.cables.push(cable);
    return cable;
  }

  /** Takes every cable of a node out, as ibsim's `Unlink "node"` does: a CA left without one is not printed. */
  uncable(id: string): this {
    const gone = new Set(this.used.get(id)?.values() ?? []);
    if (gone.size === 0) throw new Error(`${id} has no cable`);
    for (const cable of gone) {
      this.used.get(cable.a)!.delete(cable.aPort);
      this.used.get(cable.b)!.delete(cable.bPort);
      this.cables.splice(this.cables.indexOf(cable), 1);
    }
    return this;
  }

  private freePort(id: string): number {
    const node = this.nodes.get(id);
    const used = this.used.get(id);
    if (!node || !used) throw new Error(`no node ${id}`);
    for (let p = 1; p <= node.ports; p++) if (!used.has(p)) return p;
    throw new Error(`${id} has no free port`);
  }

  /** The node's cabled ports, in port order: its port, the peer and the peer's port. */
  portsOf(id: string): { port: number; peer: IbFabricNode; peerPort: number }[] {
    return [...this.used.get(id)!]
      .sort(([p], [q]) => p - q)
      .map(([port, c]) =>
        c.a === id && c.aPort === port
          ? { port, peer: this.nodes.get(c.b)!, peerPort: c.bPort }
          : { port, peer: this.nodes.get(c.a)!, peerPort: c.aPort },
      );
  }

  /** The GUID of port `port` of a node, as ibnetdiscover prints it in parentheses. */
  portGuid(node: IbFabricNode, port: number): bigint {
    return node.kind === 'switch' ? node.guid : node.guid + BigInt(port);
  }

  /**
   * The ibsim net file; the first node is where ibnetdiscover runs from.
   * ibsim's node id is the description it prints, so descriptions must be
   * unique here (the text form has no such limit).
   */
  netFile(): string {
    const seen = new Map<string, string>();
    const records: string[] = [];
    for (const node of this.nodes.values()) {
      const other = seen.get(node.description);
      if (other !== undefined)
        throw new Error(
          `ibsim needs unique descriptions: ${node.id} and ${other} are both ${JSON.stringify(node.description)}`,
        );
      if (node.description.includes('"')) throw new Error(`an ibsim node id cannot hold a quote: ${node.description}`);
      seen.set(node.description, node.id);
      const lines = [`${node.kind === 'switch' ? 'Switch' : 'Hca'}\t${node.ports} "${node.description}"`];
      for (const { port, peer, peerPort } of this.portsOf(node.id))
        lines.push(`[${port}]\t"${peer.description}"[${peerPort}]`);
      records.push(lines.join('\n'));
    }
    return `${records.join('\n\n')}\n`;
  }

  /**
   * What `ibnetdiscover` prints for the fabric, run from the first node:
   * switches, then CAs, each kind in reverse order of addition (the order the
   * real one lists them depends on its walk; readers must not care).
   */
  ibnetdiscoverText(style: IbTextStyle = {}): string {
    const speed = `4x${style.speed ?? 'SDR'}`;
    const vendor = style.vendorId ?? '0x0';
    const all = [...this.nodes.values()];
    const first = all[0];
    if (!first) throw new Error('an empty fabric');
    const out: string[] = [
      '#',
      '# Topology file: generated on Thu Jan  1 00:00:00 2026',
      '#',
      `# Initiated from node ${guid16(first.guid)} port ${guid16(this.portGuid(first, 1))}`,
    ];
    const name = (n: IbFabricNode) => `"${n.kind === 'switch' ? 'S' : 'H'}-${guid16(n.guid)}"`;
    for (const sw of all.filter((n) => n.kind === 'switch').reverse()) {
      out.push(
        '',
        `vendid=${vendor}`,
        `devid=${style.switchDeviceId ?? '0x0'}`,
        `sysimgguid=0x${hexShort(sw.guid)}`,
        `switchguid=0x${hexShort(sw.guid)}(${hexShort(sw.guid)})`,
      );
      out.push(`Switch\t${sw.ports} ${name(sw)}\t\t# "${sw.description}" ${style.port0 ?? 'base'} port 0 lid 0 lmc 0`);
      for (const { port, peer, peerPort } of this.portsOf(sw.id)) {
        const peerGuid = peer.kind === 'switch' ? '' : `(${hexShort(this.portGuid(peer, peerPort))}) `;
        out.push(`[${port}]\t${name(peer)}[${peerPort}]${peerGuid}\t\t# "${peer.description}" lid 0 ${speed}`);
      }
    }
    for (const ca of all.filter((n) => n.kind === 'ca').reverse()) {
      if (this.used.get(ca.id)!.size === 0) continue; // a CA without a cable is not reached
      out.push(
        '',
        `vendid=${vendor}`,
        `devid=${style.caDeviceId ?? '0x0'}`,
        `sysimgguid=0x${hexShort(ca.guid)}`,
        `caguid=0x${hexShort(ca.guid)}`,
      );
      out.push(`Ca\t${ca.ports} ${name(ca)}\t\t# "${ca.description}"`);
      for (const { port, peer, peerPort } of this.portsOf(ca.id)) {
        const peerGuid = peer.kind === 'switch' ? '' : ` (${hexShort(this.portGuid(peer, peerPort))}) `;
        out.push(
          `[${port}](${hexShort(this.portGuid(ca, port))}) \t${name(peer)}[${peerPort}]${peerGuid}\t\t# lid 0 lmc 0 "${peer.description}" lid 0 ${speed}`,
        );
      }
    }
    return `${out.join('\n')}\n`;
  }
}

/** The Quantum switch description `MF0;<name>:<model>/U1`. */
export const quantumDescription = (name: string, model = 'MQM9700') => `MF0;${name}:${model}/U1`;

export interface RailFabricOptions {
  /** Scalable units: each its own rail leaves, `hostsPerUnit` hosts with one HCA per rail. */
  readonly units: number;
  readonly hostsPerUnit: number;
  readonly rails: number;
  readonly spines: number;
  /** Cables between each leaf and each spine (2 on a DGX SuperPOD). */
  readonly parallel?: number;
  /** The name of host `h` (1-based) of unit `u`. */
  readonly hostName?: (unit: number, host: number) => string;
  /** The device word of rail `r` (0-based) in unit `u`: `mlx5_<r>` by default, or `HCA-<r+1>`. */
  readonly device?: (rail: number, unit: number) => string;
  /** The description of an HCA: `<host> <device>` by default (rdma-ndd's). */
  readonly caDescription?: (host: string, device: string) => string;
  /** Leaf–spine pairs left uncabled (a cable out): [unit, rail, spine], 1-based. */
  readonly missingUplinks?: readonly (readonly [number, number, number])[];
  /** Leaf and spine descriptions: the Quantum form by default. */
  readonly leafDescription?: (unit: number, rail: number) => string;
  readonly spineDescription?: (spine: number) => string;
  /** The description of the SHARP aggregation node each switch hosts on its port 65 (none by default). */
  readonly aggregationNode?: (switchId: string) => string;
}

/** A 64-port Quantum switch, with its SHARP aggregation node on port 65 when `aggregationNode` describes one. */
function addQuantumSwitch(
  fabric: IbFabric,
  id: string,
  description: string,
  aggregationNode?: (switchId: string) => string,
): void {
  fabric.addSwitch(id, aggregationNode ? 65 : 64, description);
  if (!aggregationNode) return;
  fabric.addCa(`${id}-aggregation-node`, 1, aggregationNode(id));
  fabric.cable(`${id}-aggregation-node`, id, { bPort: 65 });
}

export const leafId = (unit: number, rail: number) => `leaf-su${unit}-r${rail}`;
export const spineId = (spine: number) => `spine-${spine}`;
export const railHostName = (unit: number, host: number) => `su${unit}-h${host}`;
export const caId = (host: string, device: string) => `${host} ${device}`;

/**
 * A rail-optimised fabric: per unit, `rails` leaves (leaf-su<u>-r<r>), each
 * host of the unit with HCA `device(r-1)` on rail r's leaf; every leaf cabled
 * `parallel` times to every spine but the missing ones. Hosts' HCAs are CAs
 * described `<host> <device>`. Nothing is added first: callers add the node
 * ibnetdiscover runs from before calling this when it matters.
 */
export function addRailFabric(fabric: IbFabric, opts: RailFabricOptions): IbFabric {
  const host = opts.hostName ?? railHostName;
  const device = opts.device ?? ((r: number) => `mlx5_${r}`);
  const leafDesc = opts.leafDescription ?? ((u: number, r: number) => quantumDescription(`LEAF-SU${u}-R${r}`));
  const spineDesc = opts.spineDescription ?? ((s: number) => quantumDescription(`SPINE-${s}`));
  const missing = new Set((opts.missingUplinks ?? []).map(([u, r, s]) => `${u}/${r}/${s}`));
  for (let s = 1; s <= opts.spines; s++) addQuantumSwitch(fabric, spineId(s), spineDesc(s), opts.aggregationNode);
  for (let u = 1; u <= opts.units; u++) {
    for (let r = 1; r <= opts.rails; r++) {
      addQuantumSwitch(fabric, leafId(u, r), leafDesc(u, r), opts.aggregationNode);
      for (let s = 1; s <= opts.spines; s++) {
        if (missing.has(`${u}/${r}/${s}`)) continue;
        for (let k = 0; k < (opts.parallel ?? 1); k++) fabric.cable(leafId(u, r), spineId(s));
      }
    }
    for (let h = 1; h <= opts.hostsPerUnit; h++) {
      for (let r = 1; r <= opts.rails; r++) {
        const id = caId(host(u, h), device(r - 1, u));
        fabric.addCa(id, 1, opts.caDescription?.(host(u, h), device(r - 1, u)) ?? id);
        fabric.cable(id, leafId(u, r));
      }
    }
  }
  return fabric;
}

/** The docs' and labs' small fabric: two rail-optimised units of three hosts on two rails, each leaf cabled twice to each of two spines. */
export const TWO_UNITS = { units: 2, hostsPerUnit: 3, rails: 2, spines: 2, parallel: 2 } as const;
/** Host `h` of unit `u` of TWO_UNITS as the docs name them: gpu001 … gpu006. */
export const gpuHostName = (unit: number, host: number) => `gpu00${(unit - 1) * 3 + host}`;

/** The description of an HCA that kept its firmware's default, as about one in eight does in production. */
export const FIRMWARE_DEFAULT_DESCRIPTION = 'MT4129 ConnectX7   Mellanox Technologies';

/**
 * The small fabric docs/configuration.md renders (and tests/cmd/ibnetdiscover-capture holds
 * as the real ibnetdiscover printed it on ibsim): the SM server `ufm-01` first, two
 * rail-optimised units of three hosts (gpu001-gpu003 described `mlx5_N`; gpu004-gpu006
 * `HCA-N`) on two rails, every leaf cabled twice to each of two spines but one cable out
 * (unit 2's rail-2 leaf misses spine 2), gpu002's rail-2 HCA with the firmware's
 * description, a box named `ubuntu` on a leaf, and a storage leaf on the same subnet with one
 * more HCA of every host (`mlx5_8`, `HCA-9`).
 */
export function ibExampleFabric(): IbFabric {
  const f = new IbFabric().addCa('ufm-01', 1, 'ufm-01 mlx5_0');
  addRailFabric(f, {
    ...TWO_UNITS,
    hostName: gpuHostName,
    device: (r, u) => (u === 1 ? `mlx5_${r}` : `HCA-${r + 1}`),
    caDescription: (host, device) =>
      host === 'gpu002' && device === 'mlx5_1' ? FIRMWARE_DEFAULT_DESCRIPTION : `${host} ${device}`,
    missingUplinks: [[2, 2, 2]],
  });
  f.cable('ufm-01', leafId(1, 1));
  f.addCa('ubuntu', 1, 'ubuntu mlx5_0').cable('ubuntu', leafId(2, 1));
  f.addSwitch('storage-1', 64, quantumDescription('STORAGE-1'));
  for (let s = 1; s <= 2; s++) f.cable('storage-1', spineId(s));
  for (let h = 1; h <= 6; h++) {
    const host = `gpu00${h}`;
    f.addCa(`${host} storage`, 1, `${host} ${h <= 3 ? 'mlx5_8' : 'HCA-9'}`).cable(`${host} storage`, 'storage-1');
  }
  return f;
}

/**
 * The GB200 fabric docs/configuration.md renders with `nvlink: domain` (and
 * tests/repo/docs-examples/gb200-ib.txt holds as the real ibnetdiscover printed it on
 * ibsim): the SM server `sm-01` first, two rail-optimised units of three compute trays
 * (su1-h1 … su2-h3, HCAs `mlx5_0` and `mlx5_1`) on two rails, every leaf cabled twice to
 * each of two spines: the trays of the docs' other GB200 examples, so the same Nodes give
 * the same racks.
 */
export function ibGb200ExampleFabric(): IbFabric {
  const f = new IbFabric().addCa('sm-01', 1, 'sm-01 mlx5_0');
  addRailFabric(f, TWO_UNITS);
  f.cable('sm-01', leafId(1, 1));
  return f;
}

/**
 * A small fat tree with its storage on a spine (tests/cmd/ibnetdiscover-capture/storage-on-spine.txt holds what the
 * real ibnetdiscover printed for it on ibsim): the SM server `sm-01` first, two rail-optimised units of three hosts
 * (gpu001-gpu006, HCAs `mlx5_0`, `mlx5_1`) on two rails, every leaf cabled twice to each of two spines, and two storage
 * servers (`stor01`, `stor02`) cabled straight to spine 1, as small sites cable them.
 */
export function ibStorageOnSpineFabric(): IbFabric {
  const f = new IbFabric().addCa('sm-01', 1, 'sm-01 mlx5_0');
  addRailFabric(f, { ...TWO_UNITS, hostName: gpuHostName });
  f.cable('sm-01', leafId(1, 1));
  for (const host of ['stor01', 'stor02']) f.addCa(caId(host, 'mlx5_0')).cable(caId(host, 'mlx5_0'), spineId(1));
  return f;
}
