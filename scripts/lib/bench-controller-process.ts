// The built controller executable as a benchmark subject: started with the
// flags a Deployment uses, its memory read from /proc/<pid>/status, its
// /metrics scraped, its log tail kept for error reports, and stopped with
// SIGTERM (SIGKILL after a deadline) so no process outlives the benchmark.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Only the end of the log is kept: enough to explain a failure, bounded in memory. */
const LOG_TAIL_CHARS = 16 * 1024;
const STOP_DEADLINE_MS = 30_000;
const SCRAPE_TIMEOUT_MS = 2_000;
/** USER_HZ: the unit of the CPU times in /proc/<pid>/stat on every mainstream Linux. */
const CLOCK_TICKS_PER_S = 100;

export interface ProcMemory {
  /** Resident set now, MB. */
  rssMB: number;
  /** Peak resident set since start, MB. */
  hwmMB: number;
  /** Of rssMB: anonymous memory (heaps, buffers), MB. */
  anonMB: number;
  /** Of rssMB: pages of mapped files, the executable's own code and data above all, MB. */
  fileMB: number;
}

/** VmRSS and VmHWM of a live process (Linux). */
export function procMemory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (!m) throw new Error(`/proc/${pid}/status has no ${field} line`);
    return Number(m[1]);
  };
  return { rssMB: kB('VmRSS') / 1024, hwmMB: kB('VmHWM') / 1024, anonMB: kB('RssAnon') / 1024, fileMB: kB('RssFile') / 1024 };
}

/** User + system CPU time a live process has used so far, ms (10 ms resolution). */
export function procCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name, which may itself hold spaces: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S) * 1000;
}

export class ControllerProcess {
  private readonly child: ChildProcess;
  private logTail = '';
  private readonly exited: Promise<number | null>;

  constructor(
    binary: string,
    args: string[],
    env: Record<string, string>,
    private readonly metricsUrl: string,
  ) {
    this.child = spawn(binary, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child.stderr!.on('data', (d: Buffer) => {
      this.logTail = (this.logTail + d.toString()).slice(-LOG_TAIL_CHARS);
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error('the controller did not start (no pid)');
    return this.child.pid;
  }

  get log(): string {
    return this.logTail;
  }

  memory(): ProcMemory {
    return procMemory(this.pid);
  }

  cpuMs(): number {
    return procCpuMs(this.pid);
  }

  async metrics(): Promise<string> {
    const res = await fetch(this.metricsUrl, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`GET ${this.metricsUrl} answered ${res.status}`);
    return res.text();
  }

  /** SIGTERM, then SIGKILL if it has not exited by the deadline; resolves with the exit code. */
  async stop(): Promise<number | null | 'killed'> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), STOP_DEADLINE_MS)));
    const code = await Promise.race([this.exited, deadline]);
    clearTimeout(timer);
    if (code !== 'timeout') return code;
    this.child.kill('SIGKILL');
    await this.exited;
    return 'killed';
  }
}
