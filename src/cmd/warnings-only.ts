// The logger the subcommands hand to the discoverers: their warnings and
// errors reach the user on stderr, their progress lines would only be noise.
// The one info line kept is the report of fabric hosts that match no Node:
// the controller logs it at info level (a fabric may hold hosts that are no
// Node), but a preview that silently drops hosts leaves the user guessing
// why a Node is missing from the tree.

import type { Logger } from '../log.ts';
import { isUnmappedHostLine } from '../hypernode/discovery/fabric/unmapped-hosts.ts';

export function warningsOnly(logger: Logger): Logger {
  const quiet = { info() {} };
  return {
    info: (msg, kv) => {
      if (isUnmappedHostLine(kv)) logger.warn(msg, kv);
    },
    warn: (msg, kv) => logger.warn(msg, kv),
    error: (msg, kv) => logger.error(msg, kv),
    v: () => quiet,
    enabled: () => false,
    with: (kv) => warningsOnly(logger.with(kv)),
  };
}
