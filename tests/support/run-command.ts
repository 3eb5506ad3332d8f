// Runs a command to completion with a deadline and captures what it printed:
// how the CLI and smoke tests observe the program the way a user does.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface CommandResult {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** Replaces the environment (default: ours without NODE_OPTIONS). */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Our environment minus what would change how a child Node starts. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (!('NODE_OPTIONS' in extra)) delete env.NODE_OPTIONS;
  return env;
}

export function runCommand(command: string, args: readonly string[], options: RunOptions = {}): CommandResult {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const result = spawnSync(command, args, {
    cwd: repoRoot,
    env: options.env ?? cleanEnv(),
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  if (result.error) throw new Error(`${command} ${args.join(' ')} failed to run: ${result.error.message}`);
  if (result.signal === 'SIGKILL')
    throw new Error(`${command} ${args.join(' ')} did not finish within ${timeoutMs} ms`);
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}
