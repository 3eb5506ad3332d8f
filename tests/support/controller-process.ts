// Running the controller against the API server stand-in, two ways: the
// BUILT executable as a child process (the artifact we ship; flags, env and
// stderr as an operator sees them), or runServer in-process (fast, for the
// many-variant scenarios), with its log lines and metrics registry at hand.
// Both stop within a deadline and never outlive the test.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import { createMetrics } from '../../src/app/metrics.ts';
import { runServer } from '../../src/app/server.ts';
import { configMapLocation } from '../../src/hypernode/config/location.ts';
import { createLogger } from '../../src/log.ts';
import { testOptions } from '../app/options-fixture.ts';
import { TEST_INPUT_FLAGS, TEST_INPUT_POLICY } from './input-policy.ts';
import { DEFAULT_INPUT_POLICY, type InputPolicy } from '../../src/hypernode/model/input-policy.ts';
import { waitFor, within } from '../../testing/wait.ts';
import { freePorts } from '../../testing/ports.ts';
import { BINARY, BUNDLE } from '../../testing/executables.ts';

const ROOT = join(import.meta.dirname, '../..');
const DENO = join(ROOT, 'node_modules/.bin/deno');
/** -v: V(2) shows every reconcile summary and discoverer start, which the tests read. */
const LOG_VERBOSITY = 2;
/** Kubernetes' default termination grace period: the controller must be gone by then. */
const STOP_DEADLINE_MS = 30_000;

export interface ControllerRun {
  /** Everything logged so far (klog lines). */
  log(): string;
  /** The Prometheus text exposition of /metrics (or of the registry in-process). */
  metrics(): Promise<string>;
  /** `http://127.0.0.1:<port>` of the metrics listener (the executable only). */
  metricsOrigin?: string;
  /** `http://127.0.0.1:<port>` of the health listener, /healthz and /readyz (the executable only). */
  healthOrigin?: string;
  /** The process id (the executable only), for its memory in /proc. */
  pid?: number;
  /** SIGTERM (or abort) and wait for the exit; returns the exit code (0 in-process). */
  stop(): Promise<number | null>;
}

export interface RunOptions {
  kubeconfig: string;
  /** KUBE_POD_NAMESPACE: where the discovery ConfigMap, Secrets and Events live. */
  namespace: string;
  /** Extra environment for the executable (e.g. NODE_EXTRA_CA_CERTS). */
  env?: Record<string, string>;
  /** `deno` runs the bundle under Deno 2 instead of the SEA (which falls back to Node for the bundle). */
  runtime?: 'sea' | 'deno';
  /** More flags for the executable, after the deployed ones. */
  flags?: string[];
  /**
   * Leave out the flags that let the executable reach the stand-ins on 127.0.0.1 and the fixtures under the temporary
   * directory (TEST_INPUT_FLAGS), so it runs with the shipped defaults.
   */
  shippedInputPolicy?: boolean;
  /** What runs for ibnetdiscover (--ibnetdiscover-command): a lab's script, say. */
  ibnetdiscoverCommand?: string;
  /** -v of the in-process controller (the executable takes `-v=N` in `flags`); default 2. */
  verbosity?: number;
  /** The in-process controller's bounds, in place of TEST_INPUT_POLICY (the executable takes flags). */
  inputPolicy?: InputPolicy;
}

/** The command line for what we ship: the SEA, else the bundle on this Node; or the bundle on Deno. */
function command(runtime: RunOptions['runtime'], flags: string[]): [string, string[]] {
  if (runtime === 'deno') return [DENO, ['run', '-A', BUNDLE, ...flags]];
  return existsSync(BINARY) ? [BINARY, flags] : [process.execPath, [BUNDLE, ...flags]];
}

/** Starts dist/vc-hypernode-controller-manager as deployed and waits until /readyz is 200 (it leads). */
export async function startControllerBinary(opts: RunOptions): Promise<ControllerRun> {
  const [health, metricsPort] = await freePorts(2);
  const flags = [
    `--kubeconfig=${opts.kubeconfig}`,
    // As deployed: leader election on, with the Lease in the controller's namespace.
    '--leader-elect=true',
    `--leader-elect-resource-namespace=${opts.namespace}`,
    '--enable-healthz=true',
    `--healthz-address=127.0.0.1:${health}`,
    '--enable-metrics=true',
    `--listen-address=127.0.0.1:${metricsPort}`,
    `-v=${LOG_VERBOSITY}`,
    ...(opts.shippedInputPolicy ? [] : TEST_INPUT_FLAGS),
    ...(opts.ibnetdiscoverCommand ? [`--ibnetdiscover-command=${opts.ibnetdiscoverCommand}`] : []),
    ...(opts.flags ?? []),
  ];
  if (!existsSync(BINARY) && !existsSync(BUNDLE)) throw new Error(`${BINARY} is missing: run \`npm run build\` first`);
  const [cmd, args] = command(opts.runtime, flags);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    KUBE_POD_NAMESPACE: opts.namespace,
    HELM_RELEASE_NAME: 'volcano',
    ...opts.env,
  };
  const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? 128 + (signal ? osConstants.signals[signal] : 0)));
    // Could not start at all (e.g. Deno not installed): report it as the exit, with the reason in the log.
    child.on('error', (err) => {
      log += `\n${err.message}\n`;
      resolve(-1);
    });
  });
  let exitCode: number | null | undefined;
  void exited.then((c) => (exitCode = c));
  const run: ControllerRun = {
    log: () => log,
    metricsOrigin: `http://127.0.0.1:${metricsPort}`,
    healthOrigin: `http://127.0.0.1:${health}`,
    ...(child.pid === undefined ? {} : { pid: child.pid }),
    metrics: async () =>
      (await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { signal: AbortSignal.timeout(5_000) })).text(),
    async stop() {
      if (exitCode === undefined) child.kill('SIGTERM');
      try {
        return await within(exited, STOP_DEADLINE_MS, 'the controller stopping after SIGTERM');
      } catch (err) {
        child.kill('SIGKILL');
        throw err;
      }
    },
  };
  try {
    await waitFor(
      async () => {
        if (exitCode !== undefined) throw new Error(`the controller exited with ${exitCode}:\n${log}`);
        const res = await fetch(`http://127.0.0.1:${health}/readyz`, { signal: AbortSignal.timeout(1_000) });
        await res.arrayBuffer();
        return res.status === 200;
      },
      { timeoutMs: 30_000, what: 'the controller executable to be ready' },
    );
  } catch (err) {
    await run.stop().catch(() => {});
    throw new Error(`${(err as Error).message}\n--- controller log ---\n${log}`);
  }
  return run;
}

/** runServer in this process (no leader election, no signal handlers, listeners on port 0). */
export function startControllerInProcess(opts: RunOptions): ControllerRun {
  let log = '';
  const logger = createLogger({
    verbosity: opts.verbosity ?? LOG_VERBOSITY,
    skipHeaders: true,
    sink: { write: (line) => (log += line.endsWith('\n') ? line : `${line}\n`) },
  });
  const metrics = createMetrics();
  const abort = new AbortController();
  const exits: number[] = [];
  const env = { KUBE_POD_NAMESPACE: opts.namespace, HELM_RELEASE_NAME: 'volcano' };
  const base = opts.inputPolicy ?? (opts.shippedInputPolicy ? DEFAULT_INPUT_POLICY : TEST_INPUT_POLICY);
  const inputPolicy = opts.ibnetdiscoverCommand
    ? { ...base, ibnetdiscoverCommand: opts.ibnetdiscoverCommand.split(' ') }
    : base;
  const options = testOptions({ kubeconfig: opts.kubeconfig, configMap: configMapLocation(env), inputPolicy });
  const done = runServer(options, logger, {
    env,
    handleSignals: false,
    hostname: 'e2e-in-process',
    metrics,
    signal: abort.signal,
    exit: (code) => void exits.push(code),
  });
  return {
    log: () => log,
    metrics: () => metrics.registry.metrics(),
    async stop() {
      abort.abort();
      await within(done, STOP_DEADLINE_MS, 'runServer stopping');
      return exits[0] ?? 0;
    },
  };
}
