// The resolved command-line options (01-cli): one frozen object produced by
// parsing + validation and handed to the rest of the program.
// (Parser, flag table and Validate() are added by the CLI work; this file
// starts with the shape every other module relies on.)

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
  readonly leaderElection: LeaderElectionOptions;
  readonly log: LogOptions;
}
