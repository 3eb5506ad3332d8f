// Generated InfiniBand fat trees in the JSON shapes UFM answers with (its
// ports, links and systems resources), shared by the UFM stand-in, the tests
// and the benchmark. The model follows the DGX SuperPOD reference numbers:
// a scalable unit (SU) is 32 hosts with one HCA per rail, each rail of an SU on
// its own leaf; up to 8 SUs every leaf reaches every spine (two tiers); from
// 16 SUs spine-leaf groups of 4 SUs hang under core groups (three tiers).
// NVIDIA publishes the counts, not the cabling; this wiring matches the counts.

export interface PortJson {
  [key: string]: unknown;
}
export interface LinkJson {
  [key: string]: unknown;
}
export interface SystemJson {
  [key: string]: unknown;
}

/** A host with an extra HCA cabled to a leaf of another SU (a mis-cable or a dual-homed host). */
export interface CrossCable {
  su: number;
  node: number;
  toSu: number;
  rail: number;
  /** false: the HCA port is not Active (the link is listed, the port is not up). */
  active: boolean;
}

export interface FatTreeOptions {
  /** Scalable units (1-based numbering in names). */
  sus: number;
  nodesPerSu?: number;
  rails?: number;
  /** 2 or 3; default 2 up to 8 SUs, else 3. */
  tiers?: 2 | 3;
  /** SUs per spine-leaf group in a three-tier fabric. */
  slgSus?: number;
  /** Spines per spine-leaf group in a three-tier fabric (default 32); fewer keep small test fabrics small. */
  slgSpines?: number;
  /** Uplinks per leaf (two tiers) and per spine (three tiers), default 32. */
  uplinks?: number;
  /** Distinguishes the GUIDs of several fabrics (0–255). */
  fabricId?: number;
  /** `site_name` on every object when set. */
  site?: string;
  /** The system name UFM reports for host `node` (1-based) of SU `su`. */
  hostName?: (su: number, node: number) => string;
  /** Host ports that are down (peer fields N/A, no link): `${hostName}/${rail}`. */
  downHostPorts?: readonly string[];
  crossCables?: readonly CrossCable[];
  /** One SHARP aggregation node per spine, reported as a host. */
  aggregationNodes?: boolean;
}

export interface FatTree {
  readonly systems: SystemJson[];
  readonly links: LinkJson[];
  readonly ports: PortJson[];
  /** Host system names, SU by SU. */
  readonly hosts: string[];
  readonly leafGuids: string[][];
  readonly tiers: 2 | 3;
}

export const NODES_PER_SU = 32;
export const RAILS = 8;
const UPLINKS = 32;
const SLG_SPINES = 32;

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
/** 16 lowercase hex digits: fabric, kind, two indices. */
const guid = (fabric: number, kind: number, x: number, y: number) =>
  `${hex(fabric, 2)}${hex(kind, 2)}${hex(x, 6)}${hex(y, 6)}`;
const KIND = { hostSystem: 0x01, hca: 0x02, leaf: 0x10, spine: 0x20, core: 0x30, sharp: 0x40 } as const;
const pad2 = (n: number) => String(n).padStart(2, '0');

export const defaultHostName = (su: number, node: number) => `su${pad2(su)}-n${pad2(node)}`;

interface Device {
  guid: string;
  name: string;
  type: 'switch' | 'host';
  role: 'tor' | 'core' | 'endpoint';
  description: string;
  nextPort: number;
  ports: string[];
}

interface End {
  dev: Device;
  port: number;
  /** The HCA's own GUID for host ports (a host's HCAs each have one). */
  portGuid: string;
  dname: string;
}

export function generateFatTree(opts: FatTreeOptions): FatTree {
  const nodesPerSu = opts.nodesPerSu ?? NODES_PER_SU;
  const rails = opts.rails ?? RAILS;
  const tiers = opts.tiers ?? (opts.sus <= 8 ? 2 : 3);
  const slgSus = opts.slgSus ?? 4;
  const slgSpines = opts.slgSpines ?? SLG_SPINES;
  const uplinks = opts.uplinks ?? UPLINKS;
  const f = opts.fabricId ?? 0;
  const hostName = opts.hostName ?? defaultHostName;
  const down = new Set(opts.downHostPorts ?? []);
  const site = opts.site === undefined ? {} : { site_name: opts.site };
  const devices: Device[] = [];
  const device = (g: string, name: string, type: Device['type'], role: Device['role'], description = name): Device => {
    const d = { guid: g, name, type, role, description, nextPort: 1, ports: [] };
    devices.push(d);
    return d;
  };
  const links: LinkJson[] = [];
  const ports: PortJson[] = [];
  const switchEnd = (dev: Device): End => {
    const port = dev.nextPort++;
    dev.ports.push(`${dev.guid}_${port}`);
    return { dev, port, portGuid: dev.guid, dname: `1/${Math.ceil(port / 2)}/${((port - 1) % 2) + 1}` };
  };
  const portJson = (me: End, peer: End | undefined, active: boolean): PortJson => ({
    description: me.dev.type === 'host' ? 'Computer IB Port' : 'Switch IB Port',
    number: me.port,
    external_number: me.port,
    physical_state: active ? 'Link Up' : 'Polling',
    path: `default(1) / ${me.dev.type === 'host' ? 'Computer' : 'Switch'}: ${me.dev.name} / ${me.dname}`,
    tier: me.dev.type === 'host' ? 1 : 3,
    logical_state: active ? 'Active' : 'Down',
    mtu: 4096,
    peer_port_dname: peer && active ? peer.dname : 'N/A',
    severity: 'Info',
    active_speed: active ? 'NDR' : null,
    active_width: active ? '4x' : null,
    dname: me.dname,
    peer_node_name: peer && active ? peer.dev.name : 'N/A',
    peer: peer && active ? `${peer.portGuid}_${peer.port}` : 'N/A',
    peer_node_guid: peer && active ? peer.dev.guid : 'N/A',
    systemID: me.dev.guid,
    node_description: me.dev.type === 'host' ? `${me.dev.name} mlx5_${me.port - 1}` : me.dev.name,
    name: `${me.portGuid}_${me.port}`,
    module: 'N/A',
    peer_node_description: peer && active ? `${peer.dev.name}:${peer.dname}` : 'N/A',
    guid: me.portGuid,
    system_name: me.dev.name,
    system_ip: '0.0.0.0',
    ...site,
  });
  /** One cable; `listed` false leaves out the link object (a down port). */
  const cable = (a: End, b: End, active = true, listed = active) => {
    ports.push(portJson(a, b, active), portJson(b, a, active));
    if (!listed) return;
    // UFM gives links no meaningful direction; alternate so both orders occur.
    const [s, d] = links.length % 2 === 0 ? [a, b] : [b, a];
    links.push({
      source_guid: s.portGuid,
      source_port: String(s.port),
      destination_guid: d.portGuid,
      destination_port: String(d.port),
      source_port_dname: s.dname,
      source_port_name: `${s.portGuid}_${s.port}`,
      destination_port_dname: d.dname,
      destination_port_name: `${d.portGuid}_${d.port}`,
      width: '4x',
      severity: 'Info',
      source_port_node_description: `${s.dev.name}:${s.dname}`,
      destination_port_node_description: `${d.dev.name}:${d.dname}`,
      name: `${s.portGuid}_${s.port}:${d.portGuid}_${d.port}`,
      capabilities: [],
      ...site,
    });
  };

  const leaves: Device[][] = [];
  const leafGuids: string[][] = [];
  for (let s = 1; s <= opts.sus; s++) {
    const row: Device[] = [];
    for (let r = 1; r <= rails; r++)
      row.push(device(guid(f, KIND.leaf, s, r), `su${pad2(s)}-leaf-r${r}`, 'switch', 'tor', 'MQM9700'));
    leaves.push(row);
    leafGuids.push(row.map((d) => d.guid));
  }
  const hosts: string[] = [];
  const hcaCount = new Map<Device, number>();
  const hcaEnd = (host: Device, hostIndex: number): End => {
    const r = (hcaCount.get(host) ?? 0) + 1;
    hcaCount.set(host, r);
    const portGuid = guid(f, KIND.hca, hostIndex, r);
    host.ports.push(`${portGuid}_1`);
    return { dev: host, port: 1, portGuid, dname: `HCA-${r}/1` };
  };
  const hostDevices = new Map<string, { dev: Device; index: number }>();
  for (let s = 1; s <= opts.sus; s++) {
    for (let n = 1; n <= nodesPerSu; n++) {
      const name = hostName(s, n);
      const index = s * 1000 + n;
      const host = device(guid(f, KIND.hostSystem, s, n), name, 'host', 'endpoint', 'Computer');
      hostDevices.set(`${s}/${n}`, { dev: host, index });
      hosts.push(name);
      for (let r = 1; r <= rails; r++) {
        const active = !down.has(`${name}/${r}`);
        cable(hcaEnd(host, index), switchEnd(leaves[s - 1]![r - 1]!), active);
      }
    }
  }
  for (const c of opts.crossCables ?? []) {
    const h = hostDevices.get(`${c.su}/${c.node}`);
    if (!h) throw new Error(`cross cable from an unknown host ${c.su}/${c.node}`);
    cable(hcaEnd(h.dev, h.index), switchEnd(leaves[c.toSu - 1]![c.rail - 1]!), c.active, true);
  }

  const spines: Device[] = [];
  if (tiers === 2) {
    const count = 4 * opts.sus;
    for (let j = 0; j < count; j++)
      spines.push(device(guid(f, KIND.spine, 0, j), `spine-${pad2(j + 1)}`, 'switch', 'core', 'MQM9700'));
    for (const leaf of leaves.flat())
      for (let u = 0; u < uplinks; u++) cable(switchEnd(leaf), switchEnd(spines[u % count]!));
  } else {
    const slgs = Math.ceil(opts.sus / slgSus);
    const coresPerGroup = Math.max(1, Math.ceil(opts.sus / 8));
    const cores: Device[][] = [];
    for (let j = 0; j < slgSpines; j++) {
      const group: Device[] = [];
      for (let c = 0; c < coresPerGroup; c++)
        group.push(device(guid(f, KIND.core, j, c), `cg${pad2(j + 1)}-core-${c + 1}`, 'switch', 'core', 'MQM9700'));
      cores.push(group);
    }
    for (let g = 0; g < slgs; g++) {
      const groupSpines: Device[] = [];
      for (let j = 0; j < slgSpines; j++) {
        const spine = device(
          guid(f, KIND.spine, g, j),
          `slg${pad2(g + 1)}-spine-${j + 1}`,
          'switch',
          'core',
          'MQM9700',
        );
        groupSpines.push(spine);
        spines.push(spine);
      }
      for (const row of leaves.slice(g * slgSus, (g + 1) * slgSus))
        for (const leaf of row) for (const spine of groupSpines) cable(switchEnd(leaf), switchEnd(spine));
      for (let j = 0; j < slgSpines; j++) {
        for (let u = 0; u < uplinks; u++) cable(switchEnd(groupSpines[j]!), switchEnd(cores[j]![u % coresPerGroup]!));
      }
    }
  }
  if (opts.aggregationNodes) {
    spines.forEach((spine, i) => {
      const agg = device(
        guid(f, KIND.sharp, 0, i),
        `${spine.name} Mellanox Technologies Aggregation Node`,
        'host',
        'endpoint',
        'Mellanox Technologies Aggregation Node',
      );
      cable({ dev: agg, port: 1, portGuid: agg.guid, dname: '1' }, switchEnd(spine));
      agg.ports.push(`${agg.guid}_1`);
    });
  }

  const systems = devices.map((d) => ({
    system_name: d.name,
    name: d.guid,
    guid: d.guid,
    system_guid: d.guid,
    type: d.type,
    role: d.role,
    model: d.description,
    description: d.description,
    vendor: 'Mellanox',
    technology: 'NDR',
    ip: '0.0.0.0',
    state: 'active',
    severity: 'Info',
    modules: [],
    ports: d.ports,
    ...site,
  }));
  return { systems, links, ports, hosts, leafGuids, tiers };
}

/** The brief port object (`?brief=true`): name, path and the two states. */
export function briefPort(p: PortJson): PortJson {
  return { name: p.name, path: p.path, logical_state: p.logical_state, physical_state: p.physical_state };
}

/**
 * The lowest GUID among the systems whose name starts with `prefix`: the
 * generator names two-tier spines `spine-NN`, the spines of spine-leaf group
 * G `slgGG-spine-N` and core switches `cgNN-core-N`, so this is the GUID a
 * group of those switches is named after.
 */
export function lowestGuid(tree: FatTree, prefix: string): string {
  const guids = tree.systems.filter((sys) => String(sys.system_name).startsWith(prefix)).map((sys) => String(sys.guid));
  if (guids.length === 0) throw new Error(`no system named ${prefix}…`);
  return guids.sort()[0]!;
}
