// The command line of vc-hypernode-controller-manager: the flag
// table, parse() into one frozen Options object, and validate(), which turns
// those raw Options and the environment into the one frozen ResolvedOptions the
// server runs with, or into the messages of Go's ServerOption.CheckOptionOrDie.
// Mirrors Volcano's cmd/hypernode-controller-manager/app/options/options.go,
// component-base's BindLeaderElectionFlags + ValidateLeaderElectionConfiguration
// and klog's InitFlags. Past validation the program only sees ResolvedOptions:
// nothing re-reads a flag's text.

import {
  boolKind,
  durationKind,
  float32Kind,
  goBoolKind,
  goUint64Kind,
  intKind,
  klogLevelKind,
  klogSeverityKind,
  klogTraceLocationKind,
  klogVmoduleKind,
  stringArrayKind,
  stringKind,
} from './flags/flag-kinds.ts';
import { describeFlags, flag, formatUsage, parseFlags, type FlagValues } from './flags/flag-set.ts';
import { durationFromMs, durationToMs, formatDuration, SECOND } from '../util/go-duration.ts';
import { resolveTcpAddress, systemResolver, tcpAddressesConflict, type ResolverDeps } from './flags/tcp-address.ts';
import type { ListenAddress } from './http-listen.ts';
import { configMapLocation, type ConfigMapLocation } from '../hypernode/config/location.ts';
import { errorMessage } from '../util/error-message.ts';
import { deepFreeze } from '../util/deep-freeze.ts';
import { parseNetwork } from '../util/ip-networks.ts';
import {
  DEFAULT_FILE_DIRS,
  DEFAULT_IBNETDISCOVER_COMMAND,
  FILE_DIR_FLAG,
  IBNETDISCOVER_COMMAND_FLAG,
  URL_CIDR_FLAG,
  type InputPolicy,
} from '../hypernode/model/input-policy.ts';

export interface LeaderElectionOptions {
  readonly leaderElect: boolean;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly resourceLock: string;
  readonly resourceName: string;
  readonly resourceNamespace: string;
}

export interface LogOptions {
  readonly verbosity: number;
  readonly skipHeaders: boolean;
  readonly logFlushFrequencyMs: number;
}

/** The flag values as parsed, unchecked: validate() turns them into ResolvedOptions. */
export interface Options {
  readonly master: string;
  readonly kubeconfig: string;
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
  readonly version: boolean;
  readonly healthzAddress: string;
  readonly enableHealthz: boolean;
  readonly enableMetrics: boolean;
  readonly listenAddress: string;
  /** Run everything but write nothing: no HyperNode writes, no Events, no leader election. */
  readonly dryRun: boolean;
  /** Serve /debug/topology on the metrics listener, behind token review. */
  readonly enableTopologyPage: boolean;
  /** Put /metrics behind the same token review. */
  readonly secureMetrics: boolean;
  /** --token-audience, as given. */
  readonly tokenAudiences: readonly string[];
  /** The program (and wrapper words) run for ibnetdiscover, as written: words split by blanks. */
  readonly ibnetdiscoverCommand: string;
  /** Directories a configured `file` may be read from. */
  readonly allowFileDirs: readonly string[];
  /** Networks a configured URL may reach although loopback, link-local or metadata. */
  readonly allowUrlCidrs: readonly string[];
  readonly leaderElection: LeaderElectionOptions;
  readonly log: LogOptions;
}

/** Leader election as validated: only present with --leader-elect, so every value here passed its checks. */
export interface LeaderElectionConfig {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly resourceName: string;
  readonly resourceNamespace: string;
}

/** What the server runs with: produced by validate() alone, deep-frozen. */
export interface ResolvedOptions {
  readonly master: string;
  readonly kubeconfig: string;
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
  /** Where the health server listens; undefined without --enable-healthz. */
  readonly healthz: ListenAddress | undefined;
  /** Where the metrics server listens; undefined without --enable-metrics. */
  readonly metrics: ListenAddress | undefined;
  readonly dryRun: boolean;
  /** /debug/topology is served (only with the metrics listener), every request reviewed by the API server. */
  readonly topologyPage: boolean;
  /** /metrics is served only to callers the API server authenticates and authorises. */
  readonly secureMetrics: boolean;
  /** The audiences a token of the page or secure /metrics must be issued for (one at least). */
  readonly tokenAudiences: readonly string[];
  /** Undefined with --leader-elect=false. */
  readonly leaderElection: LeaderElectionConfig | undefined;
  /** The discovery ConfigMap, from KUBE_POD_NAMESPACE and HELM_RELEASE_NAME. */
  readonly configMap: ConfigMapLocation;
  /** What the discovery configuration may reach: the ibnetdiscover program, file directories, local URLs. */
  readonly inputPolicy: InputPolicy;
}

export type Validation =
  | { readonly ok: true; readonly config: ResolvedOptions }
  | { readonly ok: false; readonly problems: readonly string[] };

export interface ValidationInputs {
  /** Where KUBE_POD_NAMESPACE and HELM_RELEASE_NAME are read (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly resolver?: ResolverDeps;
}

export const DEFAULT_LEADER_ELECTION_NAME = 'vc-hypernode-controller-manager';
/** The audience the protected endpoints accept by default: the controller's own name, never the API server's. */
export const DEFAULT_TOKEN_AUDIENCE = 'vc-hypernode-controller-manager';
export const DEFAULT_LEADER_ELECTION_NAMESPACE = 'volcano-system';
/** The only lock client-go still supports. */
export const LEASES_RESOURCE_LOCK = 'leases';
/**
 * client-go leaderelection.JitterFactor: the renew deadline must exceed retryPeriod × this. kube/leader-election.ts's
 * JITTER_FACTOR, written again rather than imported: that module loads node:crypto and node:os, which `--help` and
 * `--version` must not (tests/startup-modules.test.ts).
 */
const LEADER_ELECTION_JITTER_FACTOR = 1.2;

/** Every flag the Go binary accepts, keyed by canonical name, with Go's defaults. */
export const FLAGS = {
  // Volcano (options.go)
  master: flag(stringKind, '', 'The address of the Kubernetes API server (overrides any value in kubeconfig).'),
  kubeconfig: flag(stringKind, '', 'Path to kubeconfig file with authorization and master location information.'),
  'kube-api-qps': flag(float32Kind, 50, 'QPS to use while talking with the Kubernetes API server.'),
  'kube-api-burst': flag(intKind, 100n, 'Burst to use while talking with the Kubernetes API server.'),
  version: flag(boolKind, false, 'Show version and quit.'),
  'healthz-address': flag(stringKind, ':11251', 'The address on which to serve health checks.'),
  'enable-healthz': flag(boolKind, false, 'Enable the health check endpoint.'),
  'enable-metrics': flag(boolKind, false, 'Enable the metrics endpoint.'),
  'listen-address': flag(stringKind, ':8081', 'The address on which to serve metrics.'),

  // Ours (not in Go)
  'dry-run': flag(
    boolKind,
    false,
    'Run discovery, reconciliation, probes and metrics but write nothing: each HyperNode write and Event is logged with its diff and counted in hypernode_dry_run_writes_total instead. Leader election is skipped, so a dry-run replica never holds the Lease.',
  ),
  'enable-topology-page': flag(
    boolKind,
    false,
    'Serve /debug/topology on the metrics listener (requires --enable-metrics): the desired HyperNode tree per source, the last snapshot and its result, held deletes, rejected snapshots and uncovered Nodes, as HTML or, with Accept: application/json, JSON. Every request needs a bearer token that the API server authenticates (TokenReview) and authorises (SubjectAccessReview, verb get on the path); the ServiceAccount then needs create on tokenreviews and subjectaccessreviews.',
  ),
  'secure-metrics': flag(
    boolKind,
    false,
    "Serve /metrics only to callers whose bearer token the API server authenticates (TokenReview) and authorises (SubjectAccessReview, verb get on /metrics), as controller-runtime's secure metrics serving does (requires --enable-metrics).",
  ),
  'token-audience': flag(
    stringArrayKind,
    [DEFAULT_TOKEN_AUDIENCE],
    'An audience the bearer tokens of /debug/topology and --secure-metrics must be issued for (repeat the flag for several); a token for the API server itself is refused. A client gets one with `kubectl create token <service-account> --audience <audience>`, or a projected ServiceAccount token volume with that audience.',
  ),

  [IBNETDISCOVER_COMMAND_FLAG]: flag(
    stringKind,
    DEFAULT_IBNETDISCOVER_COMMAND.join(' '),
    'The program the ibnetdiscover source runs, with any wrapper before it, as words separated by blanks (e.g. "timeout 600 /usr/sbin/ibnetdiscover"). The discovery ConfigMap only adds allowlisted arguments (-C, -P, -t, -o, -s, -f, --node-name-map); it never chooses the program.',
  ),
  [FILE_DIR_FLAG]: flag(
    stringArrayKind,
    DEFAULT_FILE_DIRS,
    'A directory under which the discovery ConfigMap may name files to read (config.file of the graph and ibnetdiscover sources, a --node-name-map); repeat it for several. A path outside them, or leading out of them through a symbolic link or "..", is refused. --allow-file-dir= allows none.',
  ),
  [URL_CIDR_FLAG]: flag(
    stringArrayKind,
    [],
    "A network (CIDR, e.g. 127.0.0.1/32) that a URL of the discovery ConfigMap (the graph source's config.url, a UFM endpoint) may reach although it is loopback, link-local or a cloud metadata address, which are refused otherwise; repeat it for several.",
  ),

  // Leader election (component-base BindLeaderElectionFlags, Volcano's defaults)
  'leader-elect': flag(
    boolKind,
    true,
    'Run leader election before the controller loop, so that only one replica works at a time.',
  ),
  'leader-elect-lease-duration': flag(
    durationKind,
    15n * SECOND,
    'How long a standby waits after the last renewal before it may take over the lease.',
  ),
  'leader-elect-renew-deadline': flag(
    durationKind,
    10n * SECOND,
    'How long the leader keeps retrying to renew its lease before it gives up. Must be shorter than the lease duration.',
  ),
  'leader-elect-retry-period': flag(
    durationKind,
    2n * SECOND,
    'How long to wait between attempts to acquire or renew the lease.',
  ),
  'leader-elect-resource-lock': flag(
    stringKind,
    LEASES_RESOURCE_LOCK,
    "The type of object used for locking during leader election. Only 'leases' is supported.",
  ),
  'leader-elect-resource-name': flag(
    stringKind,
    DEFAULT_LEADER_ELECTION_NAME,
    'The name of the Lease object used for leader election.',
  ),
  'leader-elect-resource-namespace': flag(
    stringKind,
    DEFAULT_LEADER_ELECTION_NAMESPACE,
    'The namespace of the Lease object used for leader election.',
  ),

  // klog (Go flags merged into the set; only -v and --skip-headers change what we do)
  v: flag(klogLevelKind, 0, 'Log verbosity: V(n) messages are printed when n <= this number.', 'v'),
  vmodule: flag(
    klogVmoduleKind,
    [],
    'Comma-separated pattern=N settings for per-file verbosity (accepted, not applied).',
  ),
  logtostderr: flag(goBoolKind, true, 'Log to standard error instead of files (logs always go to standard error).'),
  alsologtostderr: flag(goBoolKind, false, 'Also log to standard error when logging to files (accepted, no effect).'),
  alsologtostderrthreshold: flag(
    klogSeverityKind,
    0,
    'Severity threshold for --alsologtostderr (accepted, no effect).',
  ),
  stderrthreshold: flag(klogSeverityKind, 0, 'Logs at or above this severity go to standard error (all of them do).'),
  'legacy-stderr-threshold-behavior': flag(
    goBoolKind,
    false,
    'Ignore --stderrthreshold when --logtostderr is true (accepted, no effect).',
  ),
  'log-dir': flag(stringKind, '', 'Directory for log files (accepted, no effect: logs go to standard error).'),
  'log-file': flag(stringKind, '', 'Log file (accepted, no effect: logs go to standard error).'),
  'log-file-max-size': flag(
    goUint64Kind,
    1800n,
    'Maximum log file size in megabytes, 0 for unlimited (accepted, no effect).',
  ),
  'one-output': flag(goBoolKind, false, 'Write logs only to their own severity file (accepted, no effect).'),
  'skip-headers': flag(goBoolKind, false, 'Omit the severity/time/pid header of each log line.'),
  'skip-log-headers': flag(goBoolKind, false, 'Omit headers when opening log files (accepted, no effect).'),
  'add-dir-header': flag(goBoolKind, false, 'Include the directory in the header file name (accepted, no effect).'),
  'log-backtrace-at': flag(
    klogTraceLocationKind,
    { file: '', line: 0 },
    'Print a stack trace when logging at file:N (accepted, no effect).',
  ),
  'log-flush-frequency': flag(
    durationKind,
    5n * SECOND,
    'Maximum time between log flushes (logs are written immediately; must be positive).',
  ),
};

/**
 * klog flags accepted for compatibility that change nothing here: logs always
 * go to standard error, unbuffered, with one verbosity for every file.
 */
const NO_EFFECT_FLAGS = [
  'add-dir-header',
  'alsologtostderr',
  'alsologtostderrthreshold',
  'legacy-stderr-threshold-behavior',
  'log-backtrace-at',
  'log-dir',
  'log-file',
  'log-file-max-size',
  'log-flush-frequency',
  'logtostderr',
  'one-output',
  'skip-log-headers',
  'stderrthreshold',
  'vmodule',
] as const satisfies readonly (keyof typeof FLAGS)[];

/** `--name=value` of every no-effect klog flag given a value other than its default, e.g. `--log-file=/var/log/x`. */
export function ineffectiveFlags(flags: readonly FlagSetting[]): string[] {
  const noEffect = new Set<string>(NO_EFFECT_FLAGS);
  return flags
    .filter((f) => noEffect.has(f.name))
    .filter((f) => {
      const spec = FLAGS[f.name as (typeof NO_EFFECT_FLAGS)[number]];
      return f.value !== spec.kind.format(spec.defaultValue as never);
    })
    .map((f) => `--${f.name}=${f.value}`);
}

/** One `FLAG: --name="value"` line of the V(2) dump. */
export interface FlagSetting {
  readonly name: string;
  readonly value: string;
}

export type CommandLine =
  | {
      readonly kind: 'ok';
      readonly options: Options;
      readonly flags: readonly FlagSetting[];
      readonly positionals: readonly string[];
    }
  | { readonly kind: 'help' }
  | { readonly kind: 'error'; readonly message: string };

/** Parses the arguments after the program name (pflag rules, flags/flag-set.ts). Never throws for user input. */
export function parse(argv: readonly string[]): CommandLine {
  const result = parseFlags(FLAGS, argv);
  if (result.kind !== 'ok') return result;
  return {
    kind: 'ok',
    options: toOptions(result.values),
    flags: Object.freeze(describeFlags(FLAGS, result.values)),
    positionals: Object.freeze([...result.positionals]),
  };
}

/**
 * What the controller reads from its environment, after pflag's flag list
 * (which ends the part that matches Go's usage text line for line).
 */
const ENVIRONMENT_HELP = `
Environment variables:
  KUBE_POD_NAMESPACE   Namespace of the discovery ConfigMap (default "volcano-system").
  HELM_RELEASE_NAME    The discovery ConfigMap is <HELM_RELEASE_NAME>-controller-configmap (default "volcano").
`;

/** The help text printed for -h/--help and before every parse error. */
export function usage(argv0: string): string {
  return formatUsage(FLAGS, argv0) + ENVIRONMENT_HELP;
}

function toOptions(v: FlagValues<typeof FLAGS>): Options {
  return deepFreeze({
    master: v.master,
    kubeconfig: v.kubeconfig,
    kubeApiQps: v['kube-api-qps'],
    kubeApiBurst: Number(v['kube-api-burst']),
    version: v.version,
    healthzAddress: v['healthz-address'],
    enableHealthz: v['enable-healthz'],
    enableMetrics: v['enable-metrics'],
    listenAddress: v['listen-address'],
    dryRun: v['dry-run'],
    enableTopologyPage: v['enable-topology-page'],
    secureMetrics: v['secure-metrics'],
    tokenAudiences: v['token-audience'],
    ibnetdiscoverCommand: v[IBNETDISCOVER_COMMAND_FLAG],
    allowFileDirs: v[FILE_DIR_FLAG],
    allowUrlCidrs: v[URL_CIDR_FLAG],
    leaderElection: {
      leaderElect: v['leader-elect'],
      leaseDurationMs: durationToMs(v['leader-elect-lease-duration']),
      renewDeadlineMs: durationToMs(v['leader-elect-renew-deadline']),
      retryPeriodMs: durationToMs(v['leader-elect-retry-period']),
      resourceLock: v['leader-elect-resource-lock'],
      resourceName: v['leader-elect-resource-name'],
      resourceNamespace: v['leader-elect-resource-namespace'],
    },
    log: {
      verbosity: v.v,
      skipHeaders: v['skip-headers'],
      logFlushFrequencyMs: durationToMs(v['log-flush-frequency']),
    },
  });
}

/**
 * All start-up checks (CheckOptionOrDie's, in Go's order, then the checks Go only
 * makes later inside Run, docs/differences-from-go.md item 8), and the configuration they
 * vouch for: either the frozen ResolvedOptions or every problem, one message
 * per failure.
 */
export async function validate(options: Options, inputs: ValidationInputs = {}): Promise<Validation> {
  const resolver = inputs.resolver ?? systemResolver;
  const problems = validateClientFlags(options);

  const [healthz, metrics] = await Promise.all([
    options.enableHealthz ? resolveListenAddress('healthz-address', options.healthzAddress, resolver) : undefined,
    options.enableMetrics ? resolveListenAddress('listen-address', options.listenAddress, resolver) : undefined,
  ]);
  for (const check of [healthz, metrics]) if (check?.problem) problems.push(check.problem);
  if (healthz?.address && metrics?.address && tcpAddressesConflict(healthz.address, metrics.address)) {
    problems.push('healthz-address and listen-address must be different when both endpoints are enabled');
  }

  // Both live on the metrics listener: without it they would silently do nothing.
  if (options.enableTopologyPage && !options.enableMetrics)
    problems.push(
      'enable-topology-page requires enable-metrics: the page is served on the metrics listener (--listen-address)',
    );
  if (options.secureMetrics && !options.enableMetrics)
    problems.push('secure-metrics requires enable-metrics: there is no /metrics endpoint to protect');
  if (options.tokenAudiences.some((a) => a.trim() === ''))
    problems.push('token-audience must not be empty: name the audience the tokens are issued for');

  const leaderElection = validateLeaderElection(options.leaderElection);
  if (leaderElection) problems.push(leaderElection);
  problems.push(...leaderElectorProblems(options.leaderElection));

  if (!(options.log.logFlushFrequencyMs > 0)) problems.push('log-flush-frequency must be greater than zero');
  const inputPolicy = resolveInputPolicy(options, problems);
  if (problems.length > 0) return { ok: false, problems: Object.freeze(problems) };

  const le = options.leaderElection;
  const config: ResolvedOptions = {
    master: options.master,
    kubeconfig: options.kubeconfig,
    kubeApiQps: options.kubeApiQps,
    kubeApiBurst: options.kubeApiBurst,
    healthz: healthz?.address,
    metrics: metrics?.address,
    dryRun: options.dryRun,
    topologyPage: options.enableTopologyPage,
    secureMetrics: options.secureMetrics,
    tokenAudiences: options.tokenAudiences,
    leaderElection: le.leaderElect
      ? {
          leaseDurationMs: le.leaseDurationMs,
          renewDeadlineMs: le.renewDeadlineMs,
          retryPeriodMs: le.retryPeriodMs,
          resourceName: le.resourceName,
          resourceNamespace: le.resourceNamespace,
        }
      : undefined,
    configMap: configMapLocation(inputs.env),
    inputPolicy,
  };
  return { ok: true, config: deepFreeze(config) };
}

/**
 * The operator's bounds on what the discovery configuration may reach, from the three flags (`plan`, which has no
 * --ibnetdiscover-command, passes none); problems are added.
 */
export function resolveInputPolicy(
  options: Pick<Options, 'allowFileDirs' | 'allowUrlCidrs'> & { readonly ibnetdiscoverCommand?: string },
  problems: string[],
): InputPolicy {
  const command =
    options.ibnetdiscoverCommand === undefined
      ? [...DEFAULT_IBNETDISCOVER_COMMAND]
      : options.ibnetdiscoverCommand.split(/\s+/).filter((w) => w !== '');
  if (command.length === 0)
    problems.push(`${IBNETDISCOVER_COMMAND_FLAG} must name a program, e.g. ibnetdiscover or /usr/sbin/ibnetdiscover`);
  const fileDirs: string[] = [];
  for (const dir of options.allowFileDirs) {
    if (dir === '') continue;
    if (!dir.startsWith('/') || dir.split('/').includes('..'))
      problems.push(`invalid ${FILE_DIR_FLAG} ${JSON.stringify(dir)}: want an absolute directory without ".."`);
    else fileDirs.push(dir.length > 1 ? dir.replace(/\/+$/, '') : dir);
  }
  for (const cidr of options.allowUrlCidrs)
    if (parseNetwork(cidr) === undefined)
      problems.push(
        `invalid ${URL_CIDR_FLAG} ${JSON.stringify(cidr)}: want a network such as 127.0.0.1/32 or fd00::/8`,
      );
  return { ibnetdiscoverCommand: command, fileDirs, urlCidrs: [...options.allowUrlCidrs] };
}

/** The API client checks, shared with `plan`, which takes the same client flags. */
export function validateClientFlags(options: Pick<Options, 'kubeApiQps' | 'kubeApiBurst'>): string[] {
  const problems: string[] = [];
  // NaN is not > 0: unlike Go, a NaN QPS is rejected here.
  if (!(options.kubeApiQps > 0)) problems.push('kube-api-qps must be greater than zero');
  if (options.kubeApiBurst <= 0) problems.push('kube-api-burst must be greater than zero');
  return problems;
}

/**
 * Go's net/http serves an empty address on `:http`: that is the port an empty
 * --healthz-address or --listen-address binds, so it is the one checked.
 */
const HTTP_SERVER_DEFAULT_ADDRESS = ':http';

type AddressCheck =
  | { readonly address: ListenAddress; readonly problem?: undefined }
  | { readonly address?: undefined; readonly problem: string };

async function resolveListenAddress(flagName: string, text: string, resolver: ResolverDeps): Promise<AddressCheck> {
  const effective = text === '' ? HTTP_SERVER_DEFAULT_ADDRESS : text;
  try {
    return { address: { ...(await resolveTcpAddress(effective, resolver)), text: effective } };
  } catch (err) {
    return { problem: `invalid ${flagName}: ${errorMessage(err)}` };
  }
}

/**
 * component-base ValidateLeaderElectionConfiguration, aggregated like
 * field.ErrorList.ToAggregate(): duplicates dropped, one error alone, two or
 * more as `[a, b]`. Undefined when there is nothing to report.
 */
function validateLeaderElection(le: LeaderElectionOptions): string | undefined {
  if (!le.leaderElect) return undefined;
  const lease = durationFromMs(le.leaseDurationMs);
  const renew = durationFromMs(le.renewDeadlineMs);
  const retry = durationFromMs(le.retryPeriodMs);
  const invalid = (field: string, value: bigint, why: string) =>
    `leaderElection.${field}: Invalid value: "${formatDuration(value)}": ${why}`;
  const required = (field: string) => `leaderElection.${field}: Required value`;
  const errors: string[] = [];
  if (lease <= 0n) errors.push(invalid('leaseDuration', lease, 'must be greater than zero'));
  if (renew <= 0n) errors.push(invalid('renewDeadline', renew, 'must be greater than zero'));
  if (retry <= 0n) errors.push(invalid('retryPeriod', retry, 'must be greater than zero'));
  // Go quotes the renew deadline here, not the lease duration.
  if (lease <= renew) errors.push(invalid('leaseDuration', renew, 'must be greater than `RenewDeadline`'));
  if (le.resourceLock === '') errors.push(required('resourceLock'));
  if (le.resourceNamespace === '') errors.push(required('resourceNamespace'));
  if (le.resourceName === '') errors.push(required('resourceName'));
  const distinct = [...new Set(errors)];
  if (distinct.length === 0) return undefined;
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`;
}

/** Lock names client-go removed, with the reason its resourcelock.New gives. */
const REMOVED_LOCKS: Readonly<Record<string, string>> = {
  endpoints: 'endpoints lock is removed, migrate to leases',
  configmaps: 'configmaps lock is removed, migrate to leases',
  endpointsleases: 'endpointsleases lock is removed, migrate to leases',
  configmapsleases: 'configmapsleases lock is removed, migrated to leases',
};

/**
 * What Go only discovers inside Run, after the servers started (app/server.go):
 * the lock type (resourcelock.New) and the renew deadline against the jittered
 * retry period (leaderelection.NewLeaderElector). Same texts, reported up front.
 */
function leaderElectorProblems(le: LeaderElectionOptions): string[] {
  if (!le.leaderElect) return [];
  const problems: string[] = [];
  if (le.resourceLock !== '' && le.resourceLock !== LEASES_RESOURCE_LOCK) {
    const reason = Object.hasOwn(REMOVED_LOCKS, le.resourceLock)
      ? REMOVED_LOCKS[le.resourceLock]
      : `Invalid lock-type ${le.resourceLock}`;
    problems.push(`couldn't create resource lock: ${reason}`);
  }
  const renew = durationFromMs(le.renewDeadlineMs);
  const retry = durationFromMs(le.retryPeriodMs);
  // Only meaningful once both are positive; otherwise the checks above already failed.
  if (renew > 0n && retry > 0n && renew <= BigInt(Math.trunc(LEADER_ELECTION_JITTER_FACTOR * Number(retry)))) {
    problems.push('failed to create leader elector: renewDeadline must be greater than retryPeriod*JitterFactor');
  }
  return problems;
}
