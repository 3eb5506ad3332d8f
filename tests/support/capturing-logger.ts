// A klog logger whose output a test reads back line by line.

import { createLogger, type Logger } from '../../src/log.ts';

export interface CapturedLog {
  logger: Logger;
  /** Every line written, trailing newline removed. */
  lines: string[];
  /** The message of each line: no key=value pairs (needs the headers off). */
  messages: () => string[];
}

/** Verbosity 4 and no headers (severity, time, pid, file) unless told otherwise. */
export function capturingLogger(opts: { verbosity?: number; headers?: boolean } = {}): CapturedLog {
  const lines: string[] = [];
  const logger = createLogger({
    verbosity: opts.verbosity ?? 4,
    skipHeaders: !opts.headers,
    sink: { write: (l) => lines.push(l.trimEnd()) },
  });
  return { logger, lines, messages: () => lines.map((l) => l.replace(/ [\w.-]+=.*$/, '')) };
}
