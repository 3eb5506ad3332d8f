// A real slurmctld (Debian's slurmctld package) loading a topology.conf: a
// private cluster in a temporary directory (slurm.conf, state, spool), its
// controller on 127.0.0.1 in the foreground on free ports, with one
// NodeName line per host (all at 127.0.0.1; no slurmd runs, Slurm only
// reads the topology). Authentication is auth/none, which Slurm 22.05 still
// ships, so no munged is needed and the test stays self-contained. The
// answer of `scontrol show topology` is what Slurm made of the file; a
// controller that exits instead (a topology it refuses is fatal) fails with
// its log. The controller and the slurmscriptd it forks are stopped by their
// process group (the controller's pid), within a deadline.

import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePorts } from '../../testing/ports.ts';
import { waitFor } from '../../testing/wait.ts';

const run = promisify(execFile);
const STARTUP_TIMEOUT_MS = 60_000;
const SCONTROL_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 10_000;

/** Why slurmctld cannot run here, or undefined when it can. */
export function slurmctldUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (slurmctld runs as SlurmUser=root)';
  for (const [tool, pkg] of [
    ['slurmctld', 'slurmctld'],
    ['scontrol', 'slurm-client'],
  ]) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      return `${tool} is not installed (apt-get install -y ${pkg})`;
  }
  return undefined;
}

function slurmConf(dir: string, ports: number[], hosts: readonly string[]): string {
  return [
    'ClusterName=hntest',
    'SlurmctldHost=localhost(127.0.0.1)',
    `SlurmctldPort=${ports[0]}`,
    `SlurmdPort=${ports[1]}`,
    'SlurmUser=root',
    'AuthType=auth/none',
    'CredType=cred/none',
    `StateSaveLocation=${join(dir, 'state')}`,
    `SlurmdSpoolDir=${join(dir, 'spool')}`,
    `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'MpiDefault=none',
    'TopologyPlugin=topology/tree',
    ...hosts.map((h) => `NodeName=${h} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN`),
    'PartitionName=all Nodes=ALL Default=YES',
    '',
  ].join('\n');
}

/** Exit of a child as text, for messages. */
const exitOf = (p: ChildProcess) => (p.exitCode !== null ? `exit code ${p.exitCode}` : `signal ${p.signalCode}`);

/** Signals the process group `p` leads (slurmctld and the slurmscriptd it forks); gone already is fine. */
function signalGroup(p: ChildProcess, signal: NodeJS.Signals): void {
  if (p.pid === undefined) return;
  try {
    process.kill(-p.pid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/**
 * SIGTERM to the group, SIGKILL after the deadline; then the group is killed outright, so no helper outlives the test.
 */
async function stop(p: ChildProcess): Promise<void> {
  if (p.pid !== undefined && p.exitCode === null && p.signalCode === null) {
    const exited = new Promise<void>((resolve) => p.once('exit', () => resolve()));
    signalGroup(p, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(p, 'SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
  signalGroup(p, 'SIGKILL');
}

/**
 * Starts slurmctld on `topologyConf` with `hosts` as its nodes, and returns
 * `scontrol show topology`'s answer; throws with slurmctld's log when it
 * exits or does not answer in time. The controller is stopped either way.
 */
export async function slurmctldTopology(topologyConf: string, hosts: readonly string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'hn-slurmctld-'));
  let ctld: ChildProcess | undefined;
  try {
    for (const d of ['state', 'spool']) mkdirSync(join(dir, d));
    const conf = join(dir, 'slurm.conf');
    writeFileSync(conf, slurmConf(dir, await freePorts(2), hosts));
    writeFileSync(join(dir, 'topology.conf'), topologyConf);
    const env = { ...process.env, SLURM_CONF: conf };
    let log = '';
    // Its own process group, so stopping it reaches slurmscriptd too.
    const started = spawn('slurmctld', ['-D', '-i', '-f', conf], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    ctld = started;
    for (const stream of [started.stdout, started.stderr]) stream.on('data', (b: Buffer) => void (log += b.toString()));
    started.on('error', (err) => void (log += `cannot run slurmctld: ${err.message}\n`));
    // scontrol retries a controller that is gone for seconds: an exit cuts it short.
    const gone = new AbortController();
    started.once('exit', () => gone.abort());
    // An exit ends the wait at once (a refused topology is fatal), with the log.
    const answer = await waitFor(
      async () => {
        if (started.exitCode !== null || started.signalCode !== null) return { exited: exitOf(started) };
        const r = await run('scontrol', ['show', 'topology'], {
          env,
          timeout: SCONTROL_TIMEOUT_MS,
          encoding: 'utf8',
          signal: gone.signal,
        });
        return r.stdout.trim() !== '' ? { topology: r.stdout } : undefined;
      },
      { timeoutMs: STARTUP_TIMEOUT_MS, intervalMs: 200, what: 'slurmctld to answer scontrol show topology' },
    ).catch((err: unknown) => ({ exited: err instanceof Error ? err.message : String(err) }));
    if ('exited' in answer) throw new Error(`slurmctld did not load the topology (${answer.exited}); its log:\n${log}`);
    return answer.topology;
  } finally {
    if (ctld) await stop(ctld);
    rmSync(dir, { recursive: true, force: true });
  }
}
