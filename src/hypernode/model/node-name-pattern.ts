// Compiles the RE2 patterns of regexMatch members, within a budget. The
// patterns come from user-written HyperNodes and the CRD does not bound them;
// RE2 refuses only programs of more than ~1.4 million instructions, and one
// such program takes seconds to compile on the event loop and holds tens of
// megabytes. A pattern over the budget is treated like one that does not
// compile: it selects nothing. Compiled patterns are cached, bounded by their
// count and by their total size, so many large patterns cannot hold memory.

import { createHash } from 'node:crypto';
import { RE2JS } from 're2js';
import { errorMessage } from '../../util/error-message.ts';

/**
 * UTF-8 bytes. A node name is at most 253 bytes and a pattern that picks a
 * group of nodes is a prefix, a few classes and counts (`^gpu-a100-[0-9]{1,4}$`,
 * ~20 bytes); even an alternation of 50 full node names of 20 characters fits.
 * Longer lists are what exactMatch members are for.
 */
export const MAX_PATTERN_BYTES = 1024;
/**
 * Estimated RE2 program instructions, which is what compile time and memory
 * follow (~40 bytes and tens of microseconds each): every literal character
 * or class is one, a counted repetition `x{n,m}` multiplies x by m. A
 * realistic pattern needs tens to a few hundred (`[a-z0-9]{1,63}` is 125,
 * the whole DNS-1123 subdomain grammar ~300).
 */
export const MAX_PROGRAM_SIZE = 2_000;

/** Cache bounds: entries, and the summed estimated program size of what is kept. */
export const CACHE_MAX_ENTRIES = 1_024;
export const CACHE_MAX_PROGRAM_SIZE = 100_000;

export type CompiledPattern =
  | { ok: true; re: RE2JS }
  /** `report` is true only when the pattern was not cached yet: log the rejection once. */
  | { ok: false; reason: 'invalid' | 'too-large'; detail: string; report: boolean };

interface Entry {
  result: CompiledPattern;
  cost: number;
}

/**
 * An upper bound of the instruction count RE2 compiles `pattern` into,
 * computed from the text alone (no parse): the size of each item, summed,
 * with counted repetitions multiplied out. Malformed syntax is only counted,
 * never rejected here; RE2 reports it when compiling.
 */
export function estimateProgramSize(pattern: string): number {
  // One frame per open group: `done` holds the finished items, `last` the item a repetition applies to.
  const frames = [{ done: 0, last: 0 }];
  const top = () => frames[frames.length - 1]!;
  const item = (size: number) => {
    const f = top();
    f.done += f.last;
    f.last = size;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    switch (c) {
      case '\\':
        i = skipEscape(pattern, i, (literal) => item(literal));
        break;
      case '[':
        i = skipClass(pattern, i);
        item(1);
        break;
      case '(':
        frames.push({ done: 0, last: 0 });
        break;
      case ')':
        if (frames.length > 1) {
          const f = frames.pop()!;
          item(f.done + f.last + 2);
        }
        break;
      case '|': {
        const f = top();
        f.done += f.last + 1;
        f.last = 0;
        break;
      }
      case '*':
      case '+':
      case '?':
        top().last += 2;
        break;
      case '{': {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
        if (!m) {
          item(1);
          break;
        }
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
        const f = top();
        f.last = max === -1 ? 2 + Math.max(min, 1) * f.last : Math.max(max, 1) * f.last + Math.max(max - min, 0);
        i += m[0].length - 1;
        break;
      }
      default:
        item(1);
    }
  }
  let size = 0;
  for (const f of frames) size += f.done + f.last + 2;
  return size;
}

/** Index of the last character of the escape at `i`; `item` is called once per literal it stands for. */
function skipEscape(p: string, i: number, item: (size: number) => void): number {
  const c = p[i + 1];
  if (c === 'Q') {
    const end = p.indexOf('\\E', i + 2);
    const stop = end === -1 ? p.length : end;
    for (let j = i + 2; j < stop; j++) item(1);
    return end === -1 ? p.length : end + 1;
  }
  item(1);
  if ((c === 'p' || c === 'P' || c === 'x') && p[i + 2] === '{') {
    const end = p.indexOf('}', i + 3);
    return end === -1 ? p.length : end;
  }
  return i + 1;
}

/** Index of the `]` closing the class that opens at `i` (or the end). */
function skipClass(p: string, i: number): number {
  let j = i + 1;
  if (p[j] === '^') j++;
  if (p[j] === ']') j++; // a leading ] is a literal
  for (; j < p.length; j++) {
    if (p[j] === ']') return j;
    if (p[j] === '\\') {
      j = skipEscape(p, j, () => {});
    } else if (p[j] === '[' && p[j + 1] === ':') {
      const end = p.indexOf(':]', j + 2);
      if (end !== -1) j = end + 1;
    }
  }
  return p.length;
}

const utf8 = new TextEncoder();

/** Checks the budget, then compiles; never throws. Failures carry `report: false` (the cache sets it on a miss). */
function compileWithinBudget(pattern: string): Entry {
  const bytes = utf8.encode(pattern).length;
  if (bytes > MAX_PATTERN_BYTES) {
    return rejected('too-large', `pattern is ${bytes} bytes, more than the ${MAX_PATTERN_BYTES} allowed`);
  }
  const size = estimateProgramSize(pattern);
  if (size > MAX_PROGRAM_SIZE) {
    return rejected(
      'too-large',
      `pattern expands to about ${size} RE2 instructions, more than the ${MAX_PROGRAM_SIZE} allowed; lower its repetition counts`,
    );
  }
  try {
    return { result: { ok: true, re: RE2JS.compile(pattern) }, cost: size };
  } catch (err) {
    return rejected('invalid', errorMessage(err));
  }
}

function rejected(reason: 'invalid' | 'too-large', detail: string): Entry {
  return { result: { ok: false, reason, detail, report: false }, cost: 0 };
}

/**
 * Compiled patterns, least recently used first. Rejected patterns are kept
 * too (at no program cost), so a HyperNode re-synced on every Node event
 * neither recompiles nor re-reports its pattern. Keys are at most
 * MAX_PATTERN_BYTES long: a longer pattern is keyed by its digest, so the
 * entry bound also bounds the memory the keys hold.
 */
class PatternCache {
  private readonly entries = new Map<string, Entry>();
  private programSize = 0;

  get(pattern: string): CompiledPattern {
    // UTF-16 length ≤ UTF-8 length: a pattern this long is over the byte cap for sure.
    const key =
      pattern.length > MAX_PATTERN_BYTES ? `sha256:${createHash('sha256').update(pattern).digest('hex')}` : pattern;
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.result;
    }
    const entry = compileWithinBudget(pattern);
    this.entries.set(key, entry);
    this.programSize += entry.cost;
    this.evict();
    return entry.result.ok ? entry.result : { ...entry.result, report: true };
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= CACHE_MAX_ENTRIES && this.programSize <= CACHE_MAX_PROGRAM_SIZE) return;
      this.entries.delete(key);
      this.programSize -= entry.cost;
    }
  }

  stats(): { entries: number; programSize: number } {
    return { entries: this.entries.size, programSize: this.programSize };
  }
}

const cache = new PatternCache();

/** The compiled form of a regexMatch pattern (Go RE2 syntax), from the shared cache. */
export function compileNodeNamePattern(pattern: string): CompiledPattern {
  return cache.get(pattern);
}

/** What the shared cache holds (tests check its bounds). */
export function patternCacheStats(): { entries: number; programSize: number } {
  return cache.stats();
}
