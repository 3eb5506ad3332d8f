// Validation of one `networkTopologyDiscovery` entry into a frozen
// DiscoveryEntry. Mirrors the DiscoveryConfig struct of
// pkg/controllers/hypernode/api/types.go and the defaulting of
// config/loader.go (docs/configuration.md, "Schema"). Unlike Go, a bad field fails only
// its own entry, with a message naming the source and the field
// (docs/differences-from-go.md item 3).

import * as v from 'valibot';
import type { DiscoveryEntry } from '../model/contracts.ts';
import { durationToMs, parseDuration } from '../../util/go-duration.ts';
import { unknownKeys } from './unknown-keys.ts';
import { parseExports } from './exports-config.ts';
import { deepFreeze } from '../../util/deep-freeze.ts';
import { errorMessage } from '../../util/error-message.ts';
import { isMapping } from '../../util/is-mapping.ts';
import { quoteInput } from '../../util/input-fragment.ts';

/** Used when `interval` is absent, null, zero or negative. */
export const DEFAULT_INTERVAL_MS = 60 * 60 * 1000;
/** Used when `maxDeletePercent` is absent or null: one run may delete up to half of a source's HyperNodes. */
export const DEFAULT_MAX_DELETE_PERCENT = 50;

/** The document's one top-level key the controller reads: the list of entries. */
export const DISCOVERY_KEY = 'networkTopologyDiscovery';

/** The keys of one entry (yaml.v2 matches them case-sensitively). */
export const ENTRY_KEYS = ['source', 'enabled', 'interval', 'credentials', 'config', 'maxDeletePercent', 'exports'];

export type EntryResult = (
  | { readonly index: number; readonly source: string; readonly enabled: boolean; readonly entry: DiscoveryEntry }
  | {
      readonly index: number;
      readonly source: string;
      /** false only when `enabled` itself decoded as false; unknown counts as wanted. */
      readonly enabled: boolean;
      readonly error: string;
    }
) & {
  /** Keys of the entry that are none of ENTRY_KEYS, most likely typos (`enable`, `confg`); ignored as in Go. */
  readonly unknownKeys: readonly string[];
  /** The 1-based line the entry starts on in its document; absent when not known. */
  readonly line?: number;
};

const describe = (x: unknown): string =>
  x === null
    ? 'null'
    : Array.isArray(x)
      ? 'a list'
      : typeof x === 'object'
        ? 'a mapping'
        : `${typeof x} ${quoteInput(x)}`;

const intervalSchema = v.pipe(
  v.unknown(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const raw = dataset.value;
    // Zero or negative means "default" in Go too, so a bare 0 is unambiguous.
    if (raw === null || (typeof raw === 'number' && raw <= 0)) return DEFAULT_INTERVAL_MS;
    if (typeof raw === 'number') {
      addIssue({
        message: `${raw} is a bare number, which Go reads as ${raw} nanoseconds; write a duration string such as "10m" or "1h"`,
      });
      return NEVER;
    }
    const ms = typeof raw === 'string' ? intervalMs(raw) : undefined;
    if (ms === undefined) {
      addIssue({ message: `${describe(raw)} is not a Go duration; write e.g. "10m", "1h30m" or "90s"` });
      return NEVER;
    }
    return ms > 0 ? ms : DEFAULT_INTERVAL_MS;
  }),
);

/** A Go duration in milliseconds, or undefined when `text` is not one (Go's own error text is replaced by advice). */
function intervalMs(text: string): number | undefined {
  try {
    return durationToMs(parseDuration(text));
  } catch {
    return undefined;
  }
}

const maxDeletePercentSchema = v.nullish(
  v.custom<number>(
    (x) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 100,
    (issue) =>
      `${describe(issue.input)} is not an integer from 0 to 100 (the share of its HyperNodes, in percent, one run of this source may delete)`,
  ),
  DEFAULT_MAX_DELETE_PERCENT,
);

const text = () => v.nullish(v.string('must be a string'), '');

const entrySchema = v.looseObject(
  {
    source: text(),
    enabled: v.nullish(
      v.boolean('must be a YAML boolean (true/false, yes/no, on/off); a quoted "true" is a string'),
      false,
    ),
    // optional() skips the pipe when the key is absent; absence is defaulted below.
    interval: v.optional(intervalSchema),
    credentials: v.nullish(
      v.looseObject(
        { secretRef: v.nullish(v.looseObject({ name: text(), namespace: text() }, 'must be a mapping')) },
        'must be a mapping',
      ),
    ),
    config: v.nullish(v.custom<Record<string, unknown>>(isMapping, 'must be a mapping'), {}),
    maxDeletePercent: maxDeletePercentSchema,
  },
  'must be a mapping with source, enabled, interval, credentials and config',
);

/** `networkTopologyDiscovery[1] (source "label", line 7)`: where an entry is, for messages. */
export function entryLocation(r: {
  readonly index: number;
  readonly source: string;
  readonly line?: number | undefined;
}): string {
  const details = [...(r.source ? [`source "${r.source}"`] : []), ...(r.line ? [`line ${r.line}`] : [])];
  return `${DISCOVERY_KEY}[${r.index}]${details.length > 0 ? ` (${details.join(', ')})` : ''}`;
}

/** The best guess at an entry's source and enabled flag, for naming a broken entry. */
function peek(raw: unknown): { source: string; enabled: boolean } {
  const obj = isMapping(raw) ? (raw as Record<string, unknown>) : {};
  return { source: typeof obj.source === 'string' ? obj.source : '', enabled: obj.enabled !== false };
}

/** Validates entry number `index` (0-based) of networkTopologyDiscovery, which starts on `line` of its document. */
export function parseEntry(raw: unknown, index: number, line?: number): EntryResult {
  const at = line ? { line } : {};
  // valibot's object schemas accept arrays; an entry must be a mapping.
  const parsed = v.safeParse(entrySchema, isMapping(raw) ? raw : null);
  const unknown = Object.freeze(
    isMapping(raw) ? unknownKeys(raw as Record<string, unknown>, ENTRY_KEYS, { ignoreCase: false }) : [],
  );
  if (!parsed.success) {
    const { source, enabled } = peek(raw);
    const where = entryLocation({ index, source, line });
    const problems = parsed.issues.map((issue) => {
      const path = v.getDotPath(issue);
      return path ? `${path}: ${issue.message}` : issue.message;
    });
    return Object.freeze({
      index,
      source,
      enabled,
      error: `${where}: ${problems.join('; ')}`,
      unknownKeys: unknown,
      ...at,
    });
  }
  const out = parsed.output;
  let exports: ReturnType<typeof parseExports>;
  try {
    exports = parseExports((raw as Record<string, unknown>).exports, out.source);
  } catch (err) {
    const where = entryLocation({ index, source: out.source, line });
    return Object.freeze({
      index,
      source: out.source,
      enabled: out.enabled,
      error: `${where}: ${errorMessage(err)}`,
      unknownKeys: unknown,
      ...at,
    });
  }
  const ref = out.credentials?.secretRef;
  const entry: DiscoveryEntry = deepFreeze({
    source: out.source,
    enabled: out.enabled,
    intervalMs: out.interval ?? DEFAULT_INTERVAL_MS,
    ...(out.credentials ? { credentials: ref ? { secretRef: { name: ref.name, namespace: ref.namespace } } : {} } : {}),
    config: structuredClone(out.config),
    maxDeletePercent: out.maxDeletePercent,
    ...(exports.nodeLabels ? { exports } : {}),
  });
  return Object.freeze({ index, source: entry.source, enabled: entry.enabled, entry, unknownKeys: unknown, ...at });
}
