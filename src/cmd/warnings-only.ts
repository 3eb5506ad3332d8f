// The logger the subcommands hand to the discoverers: their warnings and
// errors reach the user on stderr, their progress lines would only be noise.
// What the controller logs at info but a preview must show (fabric hosts
// that match no Node) the preview reports as a warning itself.

import type { Logger } from '../log.ts';

export function warningsOnly(logger: Logger): Logger {
  const quiet = { info() {} };
  return {
    info() {},
    warn: (msg, kv) => logger.warn(msg, kv),
    error: (msg, kv) => logger.error(msg, kv),
    v: () => quiet,
    enabled: () => false,
    with: (kv) => warningsOnly(logger.with(kv)),
  };
}
