// Every exit code the executable ends with, one name a meaning, so the same
// outcome exits with the same number whichever command ran (docs/design.md
// §3.4). The controller's are Go's (main.go, pflag, klog); the subcommands
// follow the tools they are scripted beside: `plan` exits as `terraform plan
// -detailed-exitcode` does (2: changes), the kubectl plugin as kubectl does
// (1 for any error, bad flags included). Who exits with which: main.ts for
// the controller and for what a subcommand returns, log.ts's logFatal, and
// the server on a second signal.

/** Done: help, `--version`, a graceful stop, a preview or plugin command that succeeded, a plan with no change. */
export const EXIT_SUCCESS = 0;
/**
 * Failed: validation, the client configuration, a health bind error, a lost Lease, a stopped controller, the shutdown
 * deadline, a second signal; a subcommand that failed; `plan`'s and the kubectl plugin's bad flags.
 */
export const EXIT_FAILURE = 1;
/** Bad flags or a misplaced command word, for the controller and `render` (pflag's ExitOnError). */
export const EXIT_USAGE = 2;
/** An uncaught bug, printed as a Go panic is, with Go's panic exit code. */
export const EXIT_PANIC = 2;
/** `plan`: the cluster differs from what the controller would make it. */
export const EXIT_CHANGES = 2;
/** klog.Fatal's: the metrics listener could not bind. */
export const EXIT_FATAL = 255;
