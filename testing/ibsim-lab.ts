// A real InfiniBand stack on this machine: Debian's `ibsim` (ibsim-utils)
// simulates a fabric from a script-built net file (testing/ib-fabric.ts), and
// the real `ibnetdiscover` (infiniband-diags) runs against it through
// `ibsim-run`, which preloads libumad2sim.so in place of /dev/infiniband.
//
// What ibsim does, measured here: it is ready within ~50 ms and says so on
// stdout (`Network simulator ready.`, then a `sim> ` prompt); it reads
// commands on stdin (`Unlink "node"`, `ReLink "node"`, `Link …`), answering
// each with the next prompt (a refused one first prints `# …`); its sockets are
// abstract Unix sockets named after IBSIM_SOCKNAME (`@sim:ctl` by default),
// which ibsim-run's clients read too, so each lab uses its own name and labs
// never meet; a client writes a scratch sysfs (`sys-<pid>/`) into its working
// directory. Two traps: ibnetdiscover with no ibsim behind its socket waits
// forever, and ibsim spins a core once its stdin ends. So commands run with a
// deadline, and ibsim runs under a watchdog shell that ends it when the
// process that started the lab is gone; close() ends it by its process group.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IbFabric } from './ib-fabric.ts';
import { within } from './wait.ts';

/** ibsim parses a net file of a few hundred nodes in well under a second. */
const START_TIMEOUT_MS = 10_000;
const COMMAND_TIMEOUT_MS = 5_000;
const STOP_TIMEOUT_MS = 5_000;
/** One ibnetdiscover run over a lab fabric takes ~30 ms; this bounds a hung one. */
const DISCOVER_TIMEOUT_MS = 20_000;
const PROMPT = 'sim> ';

/** Why the lab cannot run here, or undefined when it can. */
export function ibsimLabUnavailable(): string | undefined {
  for (const tool of ['ibsim', 'ibsim-run', 'ibnetdiscover']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      return `needs ${tool} (Debian packages ibsim-utils infiniband-diags)`;
  }
  return undefined;
}

/**
 * ibsim under a watchdog: it reads the shell's stdin (the lab's pipe; passed
 * through fd 3, as a background job's own stdin is /dev/null); the shell
 * checks once a second that the lab's process lives, and ends ibsim when it
 * does not, so a test killed mid-way leaves no spinning ibsim.
 */
const WATCHDOG = `exec 3<&0
ibsim -s "$1" <&3 3<&- &
sim=$!
trap 'kill $sim 2>/dev/null' EXIT TERM
while kill -0 "$2" 2>/dev/null && kill -0 $sim 2>/dev/null; do sleep 1; done`;

export class IbsimLab {
  readonly dir = mkdtempSync(join(tmpdir(), 'ibsim-lab-'));
  /** This lab's IBSIM_SOCKNAME. */
  readonly socketName = `vcib-${process.pid}-${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
  /** A script that runs the real ibnetdiscover against this lab with its arguments: what config.command names. */
  readonly ibnetdiscover = join(this.dir, 'ibnetdiscover');
  private sim: ChildProcess | undefined;
  private stdout = '';
  private exited: Promise<void> | undefined;

  private constructor() {
    writeFileSync(
      this.ibnetdiscover,
      `#!/bin/sh\n# The real ibnetdiscover against ibsim lab ${this.socketName}.\nexport IBSIM_SOCKNAME=${this.socketName}\ncd ${this.dir} || exit 1\nexec ibsim-run ibnetdiscover "$@"\n`,
    );
    chmodSync(this.ibnetdiscover, 0o755);
  }

  /**
   * A wrapper of `ibnetdiscover` that counts its runs, so a test sees whether a change ran it again: the wrapper's path
   * (for config.command) and the runs so far.
   */
  countedIbnetdiscover(): { readonly command: string; runs(): number } {
    const runs = join(this.dir, 'runs');
    writeFileSync(runs, '');
    const command = join(this.dir, 'counted-ibnetdiscover');
    writeFileSync(command, `#!/bin/sh\necho run >> ${runs}\nexec ${this.ibnetdiscover} "$@"\n`, { mode: 0o755 });
    return { command, runs: () => readFileSync(runs, 'utf8').split('\n').length - 1 };
  }

  /** Starts ibsim on the fabric's net file and waits until it is ready. */
  static async start(fabric: IbFabric): Promise<IbsimLab> {
    const lab = new IbsimLab();
    try {
      await lab.run(fabric.netFile());
    } catch (err) {
      await lab.close();
      throw err;
    }
    return lab;
  }

  private async run(net: string): Promise<void> {
    const netFile = join(this.dir, 'net');
    writeFileSync(netFile, net);
    const sim = spawn('sh', ['-c', WATCHDOG, 'sh', netFile, String(process.pid)], {
      cwd: this.dir,
      env: { ...process.env, IBSIM_SOCKNAME: this.socketName },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.sim = sim;
    this.exited = new Promise((resolve) => sim.once('exit', () => resolve()));
    sim.stdout!.setEncoding('utf8');
    sim.stdout!.on('data', (text: string) => (this.stdout += text));
    sim.stderr!.resume();
    const banner = await this.reply('ibsim to start', START_TIMEOUT_MS);
    if (!banner.includes('Network simulator ready.')) throw new Error(`ibsim did not start: ${banner}`);
  }

  /** Everything ibsim printed up to its next prompt (consumed), within `ms`. */
  private reply(what: string, ms: number): Promise<string> {
    return within(
      new Promise<string>((resolve, reject) => {
        const check = () => {
          const at = this.stdout.indexOf(PROMPT);
          if (at >= 0) {
            const text = this.stdout.slice(0, at);
            this.stdout = this.stdout.slice(at + PROMPT.length);
            done(() => resolve(text));
          }
        };
        const gone = () => done(() => reject(new Error(`ibsim exited while waiting for ${what}: ${this.stdout}`)));
        const done = (settle: () => void) => {
          this.sim?.stdout?.off('data', check);
          this.sim?.off('exit', gone);
          settle();
        };
        this.sim!.stdout!.on('data', check);
        this.sim!.once('exit', gone);
        check();
      }),
      ms,
      what,
    );
  }

  /**
   * Sends one console command (`Unlink "gpu01 mlx5_0"`) and waits for ibsim to have done it; throws what ibsim refused.
   */
  async command(line: string): Promise<void> {
    this.sim!.stdin!.write(`${line}\n`);
    const answer = (await this.reply(`ibsim's answer to ${line}`, COMMAND_TIMEOUT_MS)).trim();
    if (answer !== '') throw new Error(`ibsim refused ${line}: ${answer}`);
  }

  /** Takes every cable of a node out (`Unlink "node"`); `relink` puts them back. */
  unlink(description: string): Promise<void> {
    return this.command(`Unlink "${description}"`);
  }

  relink(description: string): Promise<void> {
    return this.command(`ReLink "${description}"`);
  }

  /** One run of the real ibnetdiscover against the lab, with `args`. */
  discover(args: readonly string[] = []): string {
    const r = spawnSync(this.ibnetdiscover, [...args], {
      encoding: 'utf8',
      timeout: DISCOVER_TIMEOUT_MS,
      maxBuffer: 256 * 2 ** 20,
    });
    if (r.status !== 0)
      throw new Error(`ibnetdiscover ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr}`);
    return r.stdout;
  }

  /** Ends ibsim (its process group: the watchdog and ibsim) and removes the lab's files. */
  async close(): Promise<void> {
    const sim = this.sim;
    if (sim?.pid !== undefined && sim.exitCode === null && sim.signalCode === null) {
      const kill = (signal: NodeJS.Signals) => {
        try {
          process.kill(-sim.pid!, signal);
        } catch {
          // gone already
        }
      };
      kill('SIGTERM');
      await within(this.exited!, STOP_TIMEOUT_MS, 'ibsim to stop').catch(() => kill('SIGKILL'));
    }
    sim?.stdin?.destroy();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** New labs for a test of a suite (uvu's `test`), every one closed after the test whatever its outcome. */
export function ibsimLabPerTest(suite: {
  readonly after: { each(fn: () => Promise<void>): void };
}): (fabric: IbFabric) => Promise<IbsimLab> {
  const labs: IbsimLab[] = [];
  suite.after.each(async () => {
    await Promise.all(labs.splice(0).map((lab) => lab.close()));
  });
  return async (fabric) => {
    const lab = await IbsimLab.start(fabric);
    labs.push(lab);
    return lab;
  };
}
