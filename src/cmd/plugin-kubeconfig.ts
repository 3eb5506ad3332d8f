// Where `kubectl hypernode` finds its cluster, as kubectl and its plugins do:
// --kubeconfig (and --context) anywhere on the command line, else the files
// of $KUBECONFIG that exist, merged as kubectl merges them (the first file to
// name a cluster, user or context, or to set current-context, wins), else
// ~/.kube/config, else the in-cluster service account.

import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { buildInfo, COMPONENT } from '../version.ts';
import type { Logger } from '../log.ts';
import { connectCluster, type ClusterReader } from './cluster-reads.ts';

/** Requests per second and burst of the plugin's client: a few list calls, as kubectl's defaults allow. */
const PLUGIN_QPS = 50;
const PLUGIN_BURST = 100;

/** How a plugin command reaches the cluster, resolved once for all of them. */
export interface PluginConnection {
  /** The kubeconfig files, merged in this order; none for in-cluster. */
  readonly kubeconfig: readonly string[];
  readonly context: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly serviceAccountDir?: string;
  readonly color: boolean;
}

export interface ConnectionFlags {
  /** '' when not given. */
  readonly kubeconfig: string;
  /** '' when not given: the kubeconfig's current-context. */
  readonly context: string;
  /** The command line without them. */
  readonly rest: readonly string[];
}

const CONNECTION_FLAGS = ['kubeconfig', 'context'] as const;

/** Takes `--kubeconfig` and `--context` (`--flag value` or `--flag=value`) out of `argv`, before any `--`. */
export function takeConnectionFlags(argv: readonly string[]): ConnectionFlags | { readonly error: string } {
  const found: Record<(typeof CONNECTION_FLAGS)[number], string> = { kubeconfig: '', context: '' };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const name = CONNECTION_FLAGS.find((f) => arg === `--${f}` || arg.startsWith(`--${f}=`));
    if (name === undefined) {
      rest.push(arg);
      continue;
    }
    const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
    if (value === undefined) return { error: `flag needs an argument: --${name}` };
    found[name] = value;
  }
  return { ...found, rest };
}

/**
 * The kubeconfig files to merge (none for in-cluster), from the flag,
 * `KUBECONFIG` (its files that exist, as kubectl skips the others; the first
 * when none does, so that the error names it) and the home directory.
 */
export function resolveKubeconfig(flag: string, env: Readonly<Record<string, string | undefined>>): readonly string[] {
  if (flag !== '') return [flag];
  const listed = [...new Set((env.KUBECONFIG ?? '').split(delimiter).filter((p) => p !== ''))];
  if (listed.length > 0) {
    const existing = listed.filter((p) => existsSync(p));
    return existing.length > 0 ? existing : [listed[0]!];
  }
  const home = env.HOME;
  const fallback = home ? join(home, '.kube', 'config') : '';
  return fallback !== '' && existsSync(fallback) ? [fallback] : [];
}

/** The client flags naming `files`: the first as --kubeconfig, the others merged after it. */
export function kubeconfigFlags(files: readonly string[]): {
  readonly kubeconfig: string;
  readonly mergedKubeconfigs: readonly string[];
} {
  return { kubeconfig: files[0] ?? '', mergedKubeconfigs: files.slice(1) };
}

/** A reader of the cluster `connection` names; `command` ends the User-Agent. Throws on a bad kubeconfig. */
export function connectPlugin(connection: PluginConnection, command: string, logger: Logger): ClusterReader {
  const flags = {
    master: '',
    ...kubeconfigFlags(connection.kubeconfig),
    context: connection.context,
    kubeApiQps: PLUGIN_QPS,
    kubeApiBurst: PLUGIN_BURST,
  };
  return connectCluster(flags, { program: COMPONENT, version: buildInfo(), suffix: command }, logger, {
    env: connection.env,
    ...(connection.serviceAccountDir ? { serviceAccountDir: connection.serviceAccountDir } : {}),
  });
}
