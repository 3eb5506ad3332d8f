// Spotting misspelled keys in the discovery configuration. Go decodes the
// free-form maps loosely and drops keys it does not know without a word, so
// `nodeLable` or `insecureSkipVerfy` silently mean "not set". We still ignore
// them (a configuration that worked in Go keeps working) but name them in a
// warning, so the typo can be found from the log.

import type { Logger } from '../../log.ts';

/**
 * The keys of `obj` that are not in `known`, in document order. With
 * `ignoreCase` a key matches whatever its case (mapstructure's field lookup).
 */
export function unknownKeys(obj: Readonly<Record<string, unknown>>, known: readonly string[], opts: { ignoreCase: boolean }): string[] {
  const fold = (k: string) => (opts.ignoreCase ? k.toLowerCase() : k);
  const wanted = new Set(known.map(fold));
  return Object.keys(obj).filter((k) => !wanted.has(fold(k)));
}

/** Logs one warning naming the unknown keys found at `where`; nothing when there are none. */
export function warnUnknownKeys(logger: Logger, where: string, keys: readonly string[], known: readonly string[]): void {
  if (keys.length === 0) return;
  logger.warn('Ignoring unknown keys in the discovery configuration; check their spelling', { where, unknown: keys, known });
}
