// A real LLDP fabric on this machine (testing/README.md): every switch and host
// is a network namespace, every cable a veth pair, and each namespace runs
// its own real `lldpd` exchanging real LLDP frames. Each switch's LLDP-MIB is
// served by its own real `snmpd` in the root namespace on 127.0.0.1 (v2c
// community and one SNMPv3 authPriv user), with that switch's lldpd as AgentX
// subagent over a Unix socket. Nothing leaves the machine: LLDP is layer 2
// between namespaces the lab made, SNMP stays on loopback.
//
// A switch's veth ends all carry the switch's own MAC, as a real switch's
// ports share its base MAC, so its LLDP chassis id survives recabling.
// Everything is torn down by the pids the lab started and the namespaces it
// made, never by process name. Needs root, `ip netns`, lldpd and snmpd:
// `lldpLabUnavailable()` says why not, for a visible skip.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeUdpPorts } from './ports.ts';
import { waitFor } from './wait.ts';

/** SNMP credentials every lab snmpd accepts. */
export const LAB_COMMUNITY = 'lab-community-4d2f';
export const LAB_V3_USER = 'lab-reader';
export const LAB_V3_AUTH_KEY = 'lab-auth-key-91c7';
export const LAB_V3_PRIV_KEY = 'lab-priv-key-3e58';
/** lldpd's fastest announce period, so neighbours appear within seconds. */
const TX_INTERVAL_S = 1;
const COMMAND_TIMEOUT_MS = 10_000;

/** Why the lab cannot run here, or undefined when it can. */
export function lldpLabUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (network namespaces)';
  for (const tool of ['ip', 'lldpd', 'lldpcli', 'snmpd']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      return `needs ${tool} (Debian packages lldpd snmpd iproute2)`;
  }
  const probe = `lp${process.pid}probe`;
  const made = spawnSync('ip', ['netns', 'add', probe], { timeout: COMMAND_TIMEOUT_MS });
  if (made.status !== 0) return `cannot create network namespaces: ${made.stderr.toString().trim()}`;
  spawnSync('ip', ['netns', 'del', probe], { timeout: COMMAND_TIMEOUT_MS });
  return undefined;
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { timeout: COMMAND_TIMEOUT_MS });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr?.toString().trim()}`);
}

interface Device {
  readonly name: string;
  readonly netns: string;
  /** The switch MAC its veth ends carry; hosts get one per cable. */
  readonly mac: string;
  lldpd?: ChildProcess;
  /** A host's capability given to lldpd (`station`), or undefined to let lldpd work it out. */
  capability?: string;
  /** veth ends in this namespace. */
  ends: number;
}

export interface LabSwitch extends Device {
  readonly snmpPort: number;
  readonly agentx: string;
  snmpd?: ChildProcess;
}

export interface LabCable {
  readonly id: number;
  readonly a: string;
  readonly b: string;
  /** The interface names: the port names LLDP reports. */
  readonly aPort: string;
  readonly bPort: string;
}

const mac = (kind: number, n: number, port = 0) =>
  `02:${kind.toString(16).padStart(2, '0')}:${((n >> 8) & 0xff).toString(16).padStart(2, '0')}:${(n & 0xff).toString(16).padStart(2, '0')}:${port.toString(16).padStart(2, '0')}:01`;

/**
 * A new lab for each test of a suite (uvu's `test`), closed after the test
 * whatever its outcome: call the returned function to build it.
 */
export function labPerTest(suite: { readonly after: { each(fn: () => Promise<void>): void } }): () => LldpLab {
  let lab: LldpLab | undefined;
  suite.after.each(async () => {
    await lab?.close();
    lab = undefined;
  });
  return () => (lab = new LldpLab());
}

export class LldpLab {
  readonly dir = mkdtempSync(join(tmpdir(), 'lldp-lab-'));
  /** Unique per lab: namespace names and interface names start with it. */
  private readonly tag = `l${(process.pid % 1000).toString(36)}${Math.floor(Math.random() * 36 ** 2).toString(36)}`;
  readonly switches = new Map<string, LabSwitch>();
  readonly hosts = new Map<string, Device>();
  private readonly cables = new Map<number, LabCable>();
  private readonly children = new Set<ChildProcess>();
  private nextCable = 0;
  private devices = 0;

  constructor() {
    chmodSync(this.dir, 0o755);
  }

  /** A switch: its namespace, its snmpd on 127.0.0.1:`snmpPort`, its lldpd as AgentX subagent. */
  async addSwitch(name: string): Promise<LabSwitch> {
    const [snmpPort] = await freeUdpPorts(1);
    const n = ++this.devices;
    const sw: LabSwitch = {
      name,
      netns: `${this.tag}-${n}`,
      mac: mac(0xaa, n),
      ends: 0,
      snmpPort: snmpPort!,
      agentx: join(this.dir, `${name}.agentx`),
    };
    run('ip', ['netns', 'add', sw.netns]);
    this.switches.set(name, sw);
    this.startSnmpd(sw);
    // lldpd retries a missing AgentX master only every 15 s: start it once snmpd listens.
    await waitFor(() => existsSync(sw.agentx), {
      timeoutMs: COMMAND_TIMEOUT_MS,
      what: `${name}'s snmpd AgentX socket`,
    });
    this.startLldpd(sw, ['-x', '-X', sw.agentx], 'bridge');
    return sw;
  }

  /**
   * A host as a Kubernetes node is set up: IPv4 forwarding on (kubeadm
   * requires it) and a `cni0` bridge (a CNI's), so its lldpd announces Router
   * and Bridge, as on a real cluster. `station` keeps the station-only host of
   * a plain server instead.
   */
  async addHost(name: string, kind: 'kubernetes' | 'station' = 'kubernetes'): Promise<Device> {
    const n = ++this.devices;
    const host: Device = {
      name,
      netns: `${this.tag}-${n}`,
      mac: mac(0xbb, n),
      ends: 0,
      ...(kind === 'station' ? { capability: 'station' } : {}),
    };
    run('ip', ['netns', 'add', host.netns]);
    this.hosts.set(name, host);
    if (kind === 'kubernetes') {
      run('ip', ['netns', 'exec', host.netns, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
      run('ip', ['-n', host.netns, 'link', 'add', 'cni0', 'type', 'bridge']);
      run('ip', ['-n', host.netns, 'link', 'set', 'cni0', 'up']);
    }
    this.startHostLldpd(name);
    return host;
  }

  /**
   * (Re)starts a host's lldpd: its leaves learn it again at its next frame.
   * lldpd works out a host's capabilities itself (forwarding → Router, a
   * bridge → Bridge); only a station is told.
   */
  startHostLldpd(name: string): void {
    const host = this.hosts.get(name)!;
    this.startLldpd(host, [], host.capability);
  }

  /**
   * Stops a host's lldpd, as a reboot or a NIC reset does: it sends a shutdown frame and its leaves drop it as a
   * neighbour.
   */
  async stopHostLldpd(name: string): Promise<void> {
    const host = this.hosts.get(name)!;
    await this.kill(host.lldpd);
    host.lldpd = undefined;
  }

  private device(name: string): Device {
    const d = this.switches.get(name) ?? this.hosts.get(name);
    if (!d) throw new Error(`no lab device ${name}`);
    return d;
  }

  /** A veth pair between two devices; a switch end carries the switch's MAC. */
  cable(a: string, b: string): LabCable {
    const id = ++this.nextCable;
    const [da, db] = [this.device(a), this.device(b)];
    const end = (d: Device) => (this.switches.has(d.name) ? d.mac : mac(0xcc, id, ++d.ends));
    const aPort = `${this.tag}c${id}a`;
    const bPort = `${this.tag}c${id}b`;
    run('ip', ['link', 'add', aPort, 'address', end(da), 'type', 'veth', 'peer', 'name', bPort, 'address', end(db)]);
    run('ip', ['link', 'set', aPort, 'netns', da.netns]);
    run('ip', ['link', 'set', bPort, 'netns', db.netns]);
    run('ip', ['-n', da.netns, 'link', 'set', aPort, 'up']);
    run('ip', ['-n', db.netns, 'link', 'set', bPort, 'up']);
    const cable = { id, a, b, aPort, bPort };
    this.cables.set(id, cable);
    return cable;
  }

  /** Pulls a cable: the veth pair goes, and both lldpds drop the neighbour. */
  uncable(cable: LabCable): void {
    run('ip', ['-n', this.device(cable.a).netns, 'link', 'del', cable.aPort]);
    this.cables.delete(cable.id);
  }

  /** The cables between two devices. */
  cablesBetween(a: string, b: string): LabCable[] {
    return [...this.cables.values()].filter((c) => (c.a === a && c.b === b) || (c.a === b && c.b === a));
  }

  /** `127.0.0.1:port` of a switch's snmpd. */
  address(name: string): string {
    return `127.0.0.1:${this.switches.get(name)!.snmpPort}`;
  }

  /**
   * The discovery configuration of one `lldp` source polling every switch of
   * the lab each second, its credentials in the Secret `secret`, and a silent
   * switch's table standing in for it for 6 s.
   */
  discoveryConfig(o: {
    readonly secret: { readonly name: string; readonly namespace: string };
    readonly version: '2c' | '3';
    readonly fabric: string;
  }): string {
    const switches = [...this.switches.keys()].map((n) => `"${this.address(n)}"`).join(', ');
    return `networkTopologyDiscovery:
  - source: lldp
    enabled: true
    interval: 1s
    credentials:
      secretRef: {name: ${o.secret.name}, namespace: ${o.secret.namespace}}
    config:
      snmp: {version: "${o.version}", timeout: 500ms, retries: 1}
      staleAfter: 6s
      fabric: ${o.fabric}
      switches: [${switches}]
`;
  }

  private spawnChild(cmd: string, args: string[], log: string, env: NodeJS.ProcessEnv = process.env): ChildProcess {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let tail = '';
    child.stderr!.on('data', (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000);
    });
    child.on('exit', () => writeFileSync(join(this.dir, log), tail));
    child.on('error', () => {});
    this.children.add(child);
    child.on('exit', () => this.children.delete(child));
    return child;
  }

  startSnmpd(sw: LabSwitch): void {
    const conf = join(this.dir, `${sw.name}-snmpd.conf`);
    const persistent = join(this.dir, `${sw.name}-snmp`);
    writeFileSync(
      conf,
      [
        `agentaddress udp:127.0.0.1:${sw.snmpPort}`,
        'master agentx',
        `agentXSocket ${sw.agentx}`,
        // lldpd's subagent runs as _lldpd after dropping root.
        'agentXPerms 0777 0755',
        `rocommunity ${LAB_COMMUNITY} 127.0.0.1`,
        `createUser ${LAB_V3_USER} SHA-256 ${LAB_V3_AUTH_KEY} AES ${LAB_V3_PRIV_KEY}`,
        `rouser ${LAB_V3_USER} priv`,
        '',
      ].join('\n'),
    );
    sw.snmpd = this.spawnChild('snmpd', ['-f', '-C', '-c', conf, '-Le'], `${sw.name}-snmpd.log`, {
      ...process.env,
      SNMP_PERSISTENT_DIR: persistent,
    });
  }

  /** Stops a switch's snmpd (its lldpd goes on exchanging frames): the switch stops answering SNMP. */
  async stopSnmpd(name: string): Promise<void> {
    const sw = this.switches.get(name)!;
    await this.kill(sw.snmpd);
    sw.snmpd = undefined;
  }

  private startLldpd(d: Device, extra: string[], capability: string | undefined): void {
    const conf = join(this.dir, `${d.name}-lldpd.conf`);
    const lines = [`configure system hostname ${d.name}`, `configure lldp tx-interval ${TX_INTERVAL_S}`];
    if (capability) lines.push(`configure system capabilities enabled ${capability}`);
    writeFileSync(conf, [...lines, ''].join('\n'));
    const sock = join(this.dir, `${d.name}.sock`);
    // -d: stay in the foreground (the pid is ours); -I: only the lab's veths, also those cabled later.
    d.lldpd = this.spawnChild(
      'ip',
      ['netns', 'exec', d.netns, 'lldpd', '-d', '-u', sock, '-O', conf, '-I', `${this.tag}c*`, ...extra],
      `${d.name}-lldpd.log`,
    );
  }

  private async kill(child: ChildProcess | undefined): Promise<void> {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  }

  /** Stops every process the lab started (by pid) and deletes its namespaces and files. */
  async close(): Promise<void> {
    await Promise.all([...this.children].map((c) => this.kill(c)));
    for (const d of [...this.switches.values(), ...this.hosts.values()])
      spawnSync('ip', ['netns', 'del', d.netns], { timeout: COMMAND_TIMEOUT_MS });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
