// A real SNMP agent serving recorded switches: Debian's `snmpsimd` (snmpsim
// 0.4.5) answering on 127.0.0.1 from a directory of `.snmprec` files
// (`OID|type|value` lines; the community is the file's stem). It indexes
// the files on start, so `start` waits until a GET answers. As root it drops
// to nobody/nogroup (it refuses to run as root), with its cache dir owned by
// them. Stopped by the pid it was started with.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeUdpPorts } from './ports.ts';
import { waitFor } from './wait.ts';

/** snmpsimd builds its index on the first start: tens of seconds on a loaded machine. */
const START_TIMEOUT_MS = 60_000;
const NOBODY = { user: 'nobody', group: 'nogroup' };

/** Why snmpsimd cannot run here, or undefined when it can. */
export function snmpsimUnavailable(): string | undefined {
  for (const [tool, pkg] of [
    ['snmpsimd', 'snmpsim'],
    ['snmpget', 'snmp'],
    ['snmpbulkwalk', 'snmp'],
  ]) {
    if (spawnSync('sh', ['-c', 'command -v "$1"', 'sh', tool!], { stdio: 'ignore' }).status !== 0)
      return `needs ${tool} (apt-get install -y ${pkg})`;
  }
  return undefined;
}

function uidOf(flag: '-u' | '-g', name: string): number {
  const r = spawnSync('id', [flag, name === NOBODY.group ? NOBODY.user : name]);
  return Number(r.stdout.toString().trim());
}

export class Snmpsim {
  private readonly dir = mkdtempSync(join(tmpdir(), 'snmpsim-'));
  private child?: ChildProcess;
  port = 0;

  /** Serves every `.snmprec` file of `dataDir`; resolves once `probe` (a community) answers a GET. */
  async start(dataDir: string, probe: string): Promise<void> {
    const data = join(this.dir, 'data');
    const cache = join(this.dir, 'cache');
    mkdirSync(cache);
    cpSync(dataDir, data, { recursive: true, filter: (src) => !src.endsWith('.md') });
    chmodSync(this.dir, 0o755);
    const root = process.getuid?.() === 0;
    if (root) {
      const [uid, gid] = [uidOf('-u', NOBODY.user), uidOf('-g', NOBODY.group)];
      chownSync(cache, uid, gid);
      for (const f of readdirSync(data)) chmodSync(join(data, f), 0o644);
    }
    [this.port] = await freeUdpPorts(1);
    const args = [
      `--data-dir=${data}`,
      `--cache-dir=${cache}`,
      `--agent-udpv4-endpoint=127.0.0.1:${this.port}`,
      '--v2c-arch',
      '--logging-method=null',
    ];
    if (root) args.push(`--process-user=${NOBODY.user}`, `--process-group=${NOBODY.group}`);
    // Nothing piped: the captures run synchronously, and a full pipe would stall the agent mid-walk.
    const child = spawn('snmpsimd', args, { stdio: 'ignore' });
    this.child = child;
    child.on('error', () => {});
    await waitFor(
      () => {
        if (child.exitCode !== null)
          throw new Error(
            `snmpsimd exited (${child.exitCode}); run it by hand with the same flags and --logging-method=stderr to see why`,
          );
        const r = spawnSync(
          'snmpget',
          ['-v2c', '-c', probe, '-On', '-t', '1', '-r', '0', `127.0.0.1:${this.port}`, '1.0.8802.1.1.2.1.3.1.0'],
          { timeout: 5_000 },
        );
        return r.status === 0 && r.stdout.toString().includes('INTEGER');
      },
      { timeoutMs: START_TIMEOUT_MS, what: 'snmpsimd answering' },
    );
  }

  /** `snmpbulkwalk -v2c -c <community> <extra> 127.0.0.1:port 1.0.8802.1.1.2.1`, as an operator captures a switch. */
  capture(community: string, options: readonly string[] = ['-On']): string {
    const r = spawnSync(
      'snmpbulkwalk',
      ['-v2c', '-c', community, ...options, '-t', '2', '-r', '1', `127.0.0.1:${this.port}`, '1.0.8802.1.1.2.1'],
      { timeout: 30_000 },
    );
    if (r.status !== 0)
      throw new Error(`snmpbulkwalk ${community} failed (${r.status ?? r.signal}): ${r.stderr.toString().trim()}`);
    return r.stdout.toString();
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
