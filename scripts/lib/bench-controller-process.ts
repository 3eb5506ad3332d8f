// The built controller executable as a benchmark subject: started with the
// flags a Deployment uses, its memory read from /proc/<pid>/status, its
// /metrics scraped, its log tail kept for error reports, and stopped with
// SIGTERM (SIGKILL after a deadline) so no process outlives the benchmark.

import { spawn, type ChildProcess } from 'node:child_process';
import { procCpuMs, procMemory, type ProcMemory } from '../../testing/proc-stats.ts';

/** Only the end of the log is kept: enough to explain a failure, bounded in memory. */
const LOG_TAIL_CHARS = 16 * 1024;
const STOP_DEADLINE_MS = 30_000;
const SCRAPE_TIMEOUT_MS = 2_000;

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

  /** The exit code once the process has exited, else null. */
  get exitCode(): number | null {
    return this.child.exitCode;
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
    const deadline = new Promise<'timeout'>(
      (resolve) => (timer = setTimeout(() => resolve('timeout'), STOP_DEADLINE_MS)),
    );
    const code = await Promise.race([this.exited, deadline]);
    clearTimeout(timer);
    if (code !== 'timeout') return code;
    this.child.kill('SIGKILL');
    await this.exited;
    return 'killed';
  }
}
