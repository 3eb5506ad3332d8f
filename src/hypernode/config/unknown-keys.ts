// Spotting misspelled keys in the discovery configuration. Go decodes the
// free-form maps loosely and drops keys it does not know without a word, so
// `nodeLable` or `insecureSkipVerfy` silently mean "not set". We still ignore
// them (a configuration that worked in Go keeps working) but name them in a
// warning, so the typo can be found from the log. The sections that are
// ours (no Go configuration to stay compatible with) refuse them instead,
// with one message naming the unknown keys and the known ones.

import type { Logger } from '../../log.ts';
import { quoteInput } from '../../util/input-fragment.ts';
import { firstFew } from '../../util/first-few.ts';

/** Unknown keys named in one message; a mapping of thousands names the first few. */
const MAX_NAMED = 10;

/**
 * The keys of `obj` that are not in `known`, in document order. With
 * `ignoreCase` a key matches whatever its case (mapstructure's field lookup).
 */
export function unknownKeys(
  obj: Readonly<Record<string, unknown>>,
  known: readonly string[],
  opts: { ignoreCase: boolean },
): string[] {
  const fold = (k: string) => (opts.ignoreCase ? k.toLowerCase() : k);
  const wanted = new Set(known.map(fold));
  return Object.keys(obj).filter((k) => !wanted.has(fold(k)));
}

/** Logs one warning naming the unknown keys found at `where`; nothing when there are none. */
export function warnUnknownKeys(
  logger: Logger,
  where: string,
  keys: readonly string[],
  known: readonly string[],
): void {
  if (keys.length === 0) return;
  logger.warn('Ignoring unknown keys in the discovery configuration; check their spelling', {
    where,
    unknown: keys,
    known,
  });
}

/**
 * For a strict section: `<where> has unknown keys "a", "b"; known: x, y` for
 * the keys of `obj` outside `known` (case matters), or undefined when there
 * are none. The caller throws it with its own prefix.
 */
export function unknownKeysProblem(
  obj: Readonly<Record<string, unknown>>,
  known: readonly string[],
  where: string,
): string | undefined {
  const extra = unknownKeys(obj, known, { ignoreCase: false });
  return extra.length === 0
    ? undefined
    : `${where} has unknown keys ${firstFew(
        extra.map((k) => quoteInput(k)),
        MAX_NAMED,
      )}; known: ${known.join(', ')}`;
}

/** For a strict section whose message needs no prefix: throws unknownKeysProblem's message, if any. */
export function refuseUnknownKeys(
  obj: Readonly<Record<string, unknown>>,
  known: readonly string[],
  where: string,
): void {
  const problem = unknownKeysProblem(obj, known, where);
  if (problem) throw new Error(problem);
}
