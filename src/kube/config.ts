// API client configuration: where the API server is, how to trust it, and how
// to authenticate each request. Mirrors pkg/kube/config.go together with
// client-go's clientcmd.BuildConfigFromFlags and rest.InClusterConfig
// (docs/running.md, "Against a real cluster"): --kubeconfig / --master / in-cluster resolution with the
// same warnings and error texts.
//
// Kubeconfig files are interpreted by @kubernetes/client-node's KubeConfig
// (client certificates, tokens, exec and OIDC plugins); credentials are asked
// for on every request so tokens from exec plugins refresh. In-cluster
// configuration is read here directly so the token file can be re-read for
// rotation and the directory can be pointed elsewhere in tests.

import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { delimiter, dirname } from 'node:path';
import type { RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import type { Logger } from '../log.ts';
import { describeSyntaxError, quietCause } from '../util/syntax-error.ts';
import { truncateText } from '../util/truncate.ts';
import { redactUrl } from '../util/redact-url.ts';
import { realClock, type Clock } from './clock.ts';
import { errorMessage } from '../util/error-message.ts';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** client-go's CachedFileTokenSource re-reads the token at most this often. */
export const TOKEN_REREAD_PERIOD_MS = 60_000;

export const IN_CLUSTER_WARNING =
  'Neither --kubeconfig nor --master was specified.  Using the inClusterConfig.  This might not work.';
export const NO_CONFIGURATION_ERROR =
  'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable';
export const NOT_IN_CLUSTER_ERROR =
  'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined';

/** TLS settings fixed for the life of the process (one keep-alive agent is built from them). */
export interface TlsSettings {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  /** false = insecure-skip-tls-verify. */
  readonly rejectUnauthorized: boolean;
  readonly servername?: string;
}

/** What one request carries to authenticate; re-asked per request. */
export interface Credentials {
  readonly headers: Readonly<Record<string, string>>;
  /** Client certificate from an exec plugin, when it differs per call. */
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

export interface ClientConfig {
  /** Base URL of the API server, no trailing slash; `http:` or `https:`. */
  readonly server: string;
  readonly tls: TlsSettings;
  credentials(): Promise<Credentials>;
}

export interface ConfigFlags {
  readonly master: string;
  readonly kubeconfig: string;
  /**
   * The kubeconfig context to use instead of its current-context (kubectl's --context); the controller has no such
   * flag.
   */
  readonly context?: string;
  /**
   * More kubeconfig files merged after `kubeconfig`, as kubectl merges the
   * files of $KUBECONFIG (the kubectl plugin); the controller reads one file, as Go.
   */
  readonly mergedKubeconfigs?: readonly string[];
}

export interface ConfigEnvironment {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where the service-account token and ca.crt are read from (tests point it elsewhere). */
  readonly serviceAccountDir?: string;
  readonly clock?: Clock;
}

/**
 * Resolves the client configuration from the flags exactly as client-go's
 * BuildConfigFromFlags does. Performs no network I/O.
 */
export function buildClientConfig(
  flags: ConfigFlags,
  logger: Logger,
  environment: ConfigEnvironment = {},
): ClientConfig {
  const env = environment.env ?? process.env;
  if (flags.kubeconfig === '' && flags.master === '') {
    logger.warn(IN_CLUSTER_WARNING);
    if (env.KUBECONFIG) {
      // Go ignores $KUBECONFIG here too; operators coming from kubectl expect otherwise.
      logger.warn('KUBECONFIG is set but ignored: pass --kubeconfig to use that file', { KUBECONFIG: env.KUBECONFIG });
    }
    try {
      return inClusterConfig(
        env,
        environment.serviceAccountDir ?? SERVICE_ACCOUNT_DIR,
        logger,
        environment.clock ?? realClock,
      );
    } catch (err) {
      logger.warn(`error creating inClusterConfig, falling back to default config: ${errorMessage(err)}`);
      throw new Error(NO_CONFIGURATION_ERROR, { cause: err });
    }
  }
  if (flags.kubeconfig === '') return masterOnlyConfig(flags.master);
  return kubeconfigFileConfig(
    [flags.kubeconfig, ...(flags.mergedKubeconfigs ?? [])],
    flags.master,
    flags.context ?? '',
  );
}

/** `--master` alone: that URL, no credentials, system roots for https. */
function masterOnlyConfig(master: string): ClientConfig {
  return {
    server: normaliseServer(master),
    tls: { rejectUnauthorized: true },
    credentials: async () => ({ headers: {} }),
  };
}

/** Go accepts `host:port` without a scheme (then https) and trailing slashes. */
function normaliseServer(server: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `https://${server}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`invalid configuration: host must be a URL or a host:port pair: "${redactUrl(server)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`invalid configuration: unsupported scheme "${url.protocol}" in server "${redactUrl(server)}"`);
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

function inClusterConfig(
  env: Readonly<Record<string, string | undefined>>,
  dir: string,
  logger: Logger,
  clock: Clock,
): ClientConfig {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new Error(NOT_IN_CLUSTER_ERROR);
  const tokenFile = `${dir}/token`;
  const caFile = `${dir}/ca.crt`;
  const token = new RotatingToken(tokenFile, clock);
  token.read(); // unreadable token → in-cluster config fails, as in Go
  return {
    server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    tls: { ca: loadRootCa(caFile, logger), rejectUnauthorized: true },
    credentials: async () => ({ headers: { Authorization: `Bearer ${token.current()}` } }),
  };
}

/** client-go logs and carries on with the system roots when ca.crt does not parse. */
function loadRootCa(caFile: string, logger: Logger): Buffer | undefined {
  try {
    const pem = readFileSync(caFile);
    new X509Certificate(pem);
    return pem;
  } catch (err) {
    logger.error(`Expected to load root CA config from ${caFile}, but got err: ${fsErrorText(err)}`);
    return undefined;
  }
}

/** Go-style `open <path>: no such file or directory` instead of Node's `ENOENT: ...`. */
function fsErrorText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'ENOENT' && e.path) return `open ${e.path}: no such file or directory`;
  if (e?.code === 'EACCES' && e.path) return `open ${e.path}: permission denied`;
  return errorMessage(err);
}

/** The service-account token, re-read periodically because the kubelet rotates it. */
class RotatingToken {
  private value = '';
  private readAt = -Infinity;
  constructor(
    private readonly file: string,
    private readonly clock: Clock,
  ) {}
  read(): string {
    try {
      this.value = readFileSync(this.file, 'utf8').trim();
    } catch (err) {
      throw new Error(fsErrorText(err), { cause: err });
    }
    this.readAt = this.clock.now();
    return this.value;
  }
  current(): string {
    if (this.clock.now() - this.readAt < TOKEN_REREAD_PERIOD_MS) return this.value;
    try {
      return this.read();
    } catch {
      // A token that vanished mid-rotation: keep using the last one until it reappears.
      return this.value;
    }
  }
}

/** One kubeconfig file, its certificate and key paths made absolute. */
function loadKubeconfigFile(path: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    // Parsed here with the YAML parser the discovery ConfigMap uses and handed
    // to client-node as JSON, which every YAML parser reads alike: a syntax
    // error is reported by one parser, from the sources and from the bundle
    // (whose build gives client-node that same parser, scripts/build.mjs).
    // logLevel 'error': a warning would print a frame of the file, tokens and keys included, to stderr.
    const document: unknown = parseYaml(readFileSync(path, 'utf8'), { logLevel: 'error' });
    kc.loadFromString(JSON.stringify(document ?? {}));
    // What loadFromFile does after parsing: certificate and key paths are relative to the file.
    kc.makePathsAbsolute(dirname(path));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e?.code === 'ENOENT') throw new Error(`stat ${path}: no such file or directory`, { cause: err });
    if (e?.code === 'EISDIR')
      throw new Error(
        `error loading config file "${path}": it is a directory; give the kubeconfig file itself (e.g. ~/.kube/config)`,
        { cause: err },
      );
    // The parser's own message quotes the lines around the error, tokens and passwords included.
    const syntax = describeSyntaxError(err);
    if (syntax !== undefined)
      throw new Error(`error loading config file "${path}": ${syntax}`, { cause: quietCause(err) });
    throw new Error(`error loading config file "${path}": ${truncateText(errorMessage(err))}`, { cause: err });
  }
  return kc;
}

/**
 * The files merged as kubectl merges $KUBECONFIG: the first file to name a
 * cluster, user or context wins, and the first current-context set wins.
 */
function mergedKubeconfig(paths: readonly string[]): KubeConfig {
  const [first, ...rest] = paths.map(loadKubeconfigFile);
  const kc = first!;
  for (const other of rest) {
    const add = <T extends { name: string }>(mine: T[], theirs: T[]) =>
      mine.concat(theirs.filter((t) => !mine.some((m) => m.name === t.name)));
    kc.clusters = add(kc.clusters, other.clusters);
    kc.users = add(kc.users, other.users);
    kc.contexts = add(kc.contexts, other.contexts);
    if (!kc.currentContext) kc.currentContext = other.currentContext;
  }
  return kc;
}

function kubeconfigFileConfig(paths: readonly string[], master: string, context: string): ClientConfig {
  const kc = mergedKubeconfig(paths);
  const path = paths.join(delimiter);
  if (context !== '') {
    if (!kc.getContextObject(context)) throw new Error(`context "${context}" does not exist in ${path}`);
    kc.setCurrentContext(context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster || !kc.getCurrentUser()) {
    if (master === '') throw new Error(NO_CONFIGURATION_ERROR);
  }
  const server = normaliseServer(master || cluster?.server || '');
  // KubeConfig refuses http:// servers unless TLS verification is off; for a
  // plain-HTTP server there is nothing to verify, so tell it so (Go accepts http).
  const effective = {
    name: cluster?.name ?? 'master',
    server,
    skipTLSVerify: (cluster?.skipTLSVerify ?? false) || server.startsWith('http:'),
    ...(cluster?.caData ? { caData: cluster.caData } : {}),
    ...(cluster?.caFile ? { caFile: cluster.caFile } : {}),
    ...(cluster?.tlsServerName ? { tlsServerName: cluster.tlsServerName } : {}),
  };
  kc.clusters = kc.clusters.filter((c) => c.name !== effective.name).concat(effective);
  if (!cluster) {
    kc.contexts = [{ name: 'master', cluster: effective.name, user: kc.getCurrentUser()?.name ?? '' }];
    kc.currentContext = 'master';
  }
  const user = kc.getCurrentUser();
  // Plugins (exec, OIDC, token files) may hand out a new token on any call;
  // static credentials are computed once (on first use) instead of re-reading files per request.
  const dynamic = Boolean(user?.exec || user?.authProvider);
  let fixed: Promise<Credentials> | undefined;
  return {
    server,
    tls: tlsFrom(kc, cluster?.skipTLSVerify ?? false),
    credentials: () => (dynamic ? credentialsFrom(kc) : (fixed ??= credentialsFrom(kc))),
  };
}

function requestOptions(kc: KubeConfig): Promise<RequestOptions> {
  const opts: RequestOptions = {};
  return kc.applyToHTTPSOptions(opts).then(() => opts);
}

/** Static TLS material of the current cluster/user, read once (files are read now, not per request). */
function tlsFrom(kc: KubeConfig, skipVerify: boolean): TlsSettings {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  const fromFileOrData = (what: string, file?: string, data?: string) => {
    if (!file) return data ? Buffer.from(data, 'base64') : undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`invalid configuration: unable to read ${what} ${file}: ${fsErrorText(err)}`, { cause: err });
    }
  };
  const ca = fromFileOrData('certificate-authority', cluster?.caFile, cluster?.caData);
  const cert = fromFileOrData('client-certificate', user?.certFile, user?.certData);
  const key = fromFileOrData('client-key', user?.keyFile, user?.keyData);
  return {
    rejectUnauthorized: !skipVerify,
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(cluster?.tlsServerName ? { servername: cluster.tlsServerName } : {}),
  };
}

/** Headers (bearer tokens, exec plugin output, basic auth, impersonation) for one request. */
async function credentialsFrom(kc: KubeConfig): Promise<Credentials> {
  let opts: RequestOptions;
  try {
    opts = await requestOptions(kc);
  } catch (err) {
    throw credentialsError(kc, err);
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  return {
    headers,
    ...(Buffer.isBuffer(opts.cert) ? { cert: opts.cert } : {}),
    ...(Buffer.isBuffer(opts.key) ? { key: opts.key } : {}),
  };
}

/**
 * A failed exec or auth-provider plugin. What the plugin printed on stdout is
 * the credential itself: a parse error of it is reduced to position and
 * reason. Its stderr is its message to the operator, kept but bounded.
 */
function credentialsError(kc: KubeConfig, err: unknown): Error {
  const user = kc.getCurrentUser();
  const exec = user?.exec ?? user?.authProvider?.config?.exec;
  const plugin = exec?.command
    ? `exec plugin "${exec.command}"`
    : `auth provider "${user?.authProvider?.name ?? 'unknown'}"`;
  const syntax = describeSyntaxError(err);
  const detail =
    syntax !== undefined
      ? `its output is not valid JSON: ${syntax}`
      : `failed: ${truncateText(errorMessage(err).trim())}`;
  return new Error(`getting credentials: ${plugin} ${detail}`, { cause: quietCause(err) });
}
