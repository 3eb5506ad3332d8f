// Running ibnetdiscover (the operator's --ibnetdiscover-command, a wrapper around it included, with the ConfigMap's
// checked arguments) with bounds: no shell, a deadline, a cap on the output, and the tail of stderr kept for the
// error. A file the run reads (a node-name map) is opened by the caller under the file rule and handed over as file
// descriptor 3, so the program never resolves a path the ConfigMap wrote. Its stdout goes to the caller chunk by chunk as it arrives (a
// large fabric prints tens of MB, which are never held here). ibnetdiscover waits on MADs forever when its port has no
// subnet behind it, so the deadline is what ends such a run: the command runs in its own process group and the whole
// group is killed, a wrapper's children included.

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { abortReason } from '../../../util/abort.ts';
import { safeFragment } from '../../../util/input-fragment.ts';

/** The end of stderr kept for the error message (the last lines say why). */
const STDERR_KEPT_BYTES = 4 * 1024;
/** Of which the error shows this many lines, each cut to this many bytes. */
const STDERR_LINES_SHOWN = 5;
const STDERR_LINE_MAX_BYTES = 160;
/** After killing the group, how long to wait for its pipes to close before giving up on them. */
const KILLED_CLOSE_GRACE_MS = 2_000;

export interface RunLimits {
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
}

/** The descriptor number a handed-over file has in the program (`/dev/fd/3`). */
export const HANDED_FD = 3;

/** A run that exited 0: its stderr's end (warnings ibnetdiscover may print beside a topology). */
export interface RunOutput {
  readonly stderr: string;
}

const shown = (argv: readonly string[]) =>
  argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
const durationText = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`);

/**
 * Runs `argv`, handing each chunk of its stdout to `onStdout`; rejects naming
 * the command and why it gave no usable output (stderr's end included). What
 * `onStdout` was handed is only usable when the run resolves.
 */
export function runBounded(
  argv: readonly string[],
  limits: RunLimits,
  signal: AbortSignal,
  onStdout: (chunk: Buffer) => void,
  handedFd?: number,
): Promise<RunOutput> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const command = shown(argv);
    const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe'];
    if (handedFd !== undefined) stdio[HANDED_FD] = handedFd;
    const child = spawn(argv[0]!, argv.slice(1), { stdio, detached: true }) as ChildProcessByStdio<
      null,
      Readable,
      Readable
    >;
    let bytes = 0;
    let stderr = '';
    let failure: unknown;
    let settled = false;
    // The last lines say why; each printable and bounded, as the program may print what it read (a node-name map).
    const stderrTail = () =>
      stderr
        .trim()
        .split('\n')
        .slice(-STDERR_LINES_SHOWN)
        .map((line) => safeFragment(line.trim(), STDERR_LINE_MAX_BYTES))
        .filter((line) => line !== '')
        .join(' | ') || 'nothing on stderr';
    const settle = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(grace);
      signal.removeEventListener('abort', onAbort);
      if (err === undefined) resolve({ stderr: stderr.trim() });
      else reject(err);
    };
    let grace: NodeJS.Timeout | undefined;
    /**
     * Ends the run with `err`: the group is killed, and the run settles once its pipes close (or soon after
     * regardless).
     */
    const stop = (err: unknown) => {
      failure ??= err;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      grace ??= setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        settle(failure);
      }, KILLED_CLOSE_GRACE_MS);
    };
    const deadline = setTimeout(
      () =>
        stop(
          new Error(
            `${command} did not finish within ${durationText(limits.timeoutMs)} (config.timeout) and was killed; stderr: ${stderrTail()}`,
          ),
        ),
      limits.timeoutMs,
    );
    const onAbort = () => stop(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      if (failure !== undefined) return;
      bytes += chunk.length;
      if (bytes > limits.maxOutputBytes) {
        stop(
          new Error(
            `${command} printed more than ${limits.maxOutputBytes / 2 ** 20} MiB (config.maxOutputMiB) and was killed`,
          ),
        );
        return;
      }
      try {
        onStdout(chunk);
      } catch (err) {
        // A consumer that cannot take more ends the run with its reason, rather than crashing the process from an
        // event.
        stop(err);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_KEPT_BYTES);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'ENOENT'
          ? 'not found (install infiniband-diags, or give --ibnetdiscover-command the full path)'
          : err.code === 'EACCES'
            ? 'permission denied'
            : err.message;
      settle(new Error(`cannot run ${argv[0]}: ${why}`, { cause: err }));
    });
    child.on('close', (code, sig) => {
      if (failure !== undefined) return settle(failure);
      if (code === 0) return settle(undefined);
      settle(
        new Error(
          `${command} ${code === null ? `was killed by ${sig}` : `exited with code ${code}`}; stderr: ${stderrTail()}`,
        ),
      );
    });
  });
}
