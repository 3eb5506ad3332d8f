// JSON from outside read within bounds on what parsing it may build. A byte
// cap alone does not bound memory: 60 MiB of `[[[[…]]]]` is 30 million nested
// arrays, and 60 MiB of `[],[],…` 20 million empty ones, each tens of bytes
// once JSON.parse has built it (a UFM answer of either took the process past
// 3 GB). So the text is scanned first — a loop over its characters that
// allocates nothing — and refused when its nesting or its number of values is
// past the bounds, before JSON.parse builds a single object. Long answers are
// read one array element at a time (`jsonArrayElements`), each element bounded
// on its own, so the whole answer never exists as one object tree. Every
// reader here is work in steps (sliced-work.ts): a scan pauses every
// SCAN_STEP_CHARS characters and after each element, so a 60 MiB answer never
// holds the thread that answers the probes for more than a slice.
// Errors name what was found and the limit, never the content; a syntax
// error names its position and reason, as syntax-error.ts words it.

import { describeSyntaxError, quietCause } from './syntax-error.ts';
import type { SlicedWork } from './sliced-work.ts';

/** Characters scanned between two pauses: a few milliseconds. */
const SCAN_STEP_CHARS = 1 << 20;

/** What one parse may build (JSON here, YAML in bounded-yaml.ts). */
export interface ParseBounds {
  /** Arrays and objects inside one another, the outermost counting 1. */
  readonly maxDepth: number;
  /**
   * Values, counted from the text: for JSON its arrays, objects, member names and elements (an over-count of at most
   * the empty containers, never an under-count).
   */
  readonly maxValues: number;
}

/** The bounds of a long answer read element by element. */
export interface JsonArrayBounds extends ParseBounds {
  /** Elements of the array; each is bounded by maxDepth and maxValues on its own. */
  readonly maxElements: number;
}

/** Refused for its shape, before it was parsed. The message names the figure found and the limit. */
export class ParseBoundsError extends Error {
  override readonly name = 'ParseBoundsError';
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

const isSpace = (c: number) => c === SPACE || c === LF || c === CR || c === TAB;
/** Whitespace, `,`, `:`, `]` and `}`: what ends a number, true, false or null. */
const endsScalar = (c: number) =>
  isSpace(c) || c === COMMA || c === COLON || c === CLOSE_ARRAY || c === CLOSE_OBJECT || Number.isNaN(c);

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** What a scan of one value found. */
interface Shape {
  /** The index after the value (text.length when it is unterminated: JSON.parse then says so). */
  end: number;
  depth: number;
  values: number;
}

/**
 * Scans the value starting at `start` (no whitespace before it) and measures it, pausing every SCAN_STEP_CHARS. Only
 * delimits and counts: JSON.parse of the slice validates it. A string's content is skipped, escapes included.
 */
function* scanValue(text: string, start: number): SlicedWork<Shape> {
  const first = text.charCodeAt(start);
  if (first !== QUOTE && first !== OPEN_ARRAY && first !== OPEN_OBJECT) {
    let i = start;
    while (i < text.length && !endsScalar(text.charCodeAt(i))) i++;
    return { end: i, depth: 0, values: 1 };
  }
  let depth = 0;
  let deepest = 0;
  let values = 1;
  let inString = false;
  let pause = start + SCAN_STEP_CHARS;
  for (let i = start; i < text.length; i++) {
    if (i >= pause) {
      yield;
      pause = i + SCAN_STEP_CHARS;
    }
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (depth === 0) return { end: i + 1, depth: 0, values: 1 };
      }
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > deepest) deepest = depth;
      values++;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (--depth === 0) return { end: i + 1, depth: deepest, values };
    } else if (c === COMMA || c === COLON) values++;
  }
  return { end: text.length, depth: deepest, values };
}

/** Throws a ParseBoundsError naming the figure found and the limit when a measured shape is past `bounds`. */
export function refuseShape(shape: { depth: number; values: number }, bounds: ParseBounds, what: string): void {
  if (shape.depth > bounds.maxDepth)
    throw new ParseBoundsError(
      `${what} is nested ${shape.depth} levels deep; the limit is ${bounds.maxDepth}, so it was not parsed`,
    );
  if (shape.values > bounds.maxValues)
    throw new ParseBoundsError(
      `${what} holds about ${shape.values} values; the limit is ${bounds.maxValues}, so it was not parsed`,
    );
}

/** The first JSON value of `text` (leading whitespace skipped), parsed once its shape is within `bounds`. */
export function* parseBoundedJson(text: string, bounds: ParseBounds, what: string): SlicedWork<unknown> {
  const start = skipSpace(text, 0);
  if (start >= text.length) return parseQuietly(text, what); // JSON.parse's own "unexpected end" error
  const shape = yield* scanValue(text, start);
  refuseShape(shape, bounds, what);
  return parseQuietly(start === 0 && shape.end === text.length ? text : text.slice(start, shape.end), what);
}

/** JSON.parse whose error says where and why, never the text around it. */
function parseQuietly(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const described = describeSyntaxError(err, text);
    if (described === undefined) throw err;
    throw new SyntaxError(`${what} is not valid JSON: ${described}`, { cause: quietCause(err, text) });
  }
}

/**
 * Hands `visit` the elements of the JSON array opening at `start`, each parsed on its own once its shape is within
 * `bounds`, pausing after each; the element count is bounded too. Throws a SyntaxError on a malformed array (what
 * JSON.parse would say of it) and a ParseBoundsError past a bound.
 */
export function* jsonArrayElements(
  text: string,
  start: number,
  bounds: JsonArrayBounds,
  what: string,
  visit: (element: unknown, index: number) => void,
): SlicedWork<void> {
  let i = skipSpace(text, start + 1);
  if (text.charCodeAt(i) === CLOSE_ARRAY) return;
  for (let index = 0; ; index++) {
    if (i >= text.length) throw new SyntaxError('unexpected end of JSON input');
    if (index >= bounds.maxElements) throw yield* tooManyElements(text, start, bounds, what);
    const shape = yield* scanValue(text, i);
    refuseShape(shape, bounds, `${what} element [${index}]`);
    visit(parseQuietly(text.slice(i, shape.end), `${what} element [${index}]`), index);
    yield;
    i = skipSpace(text, shape.end);
    const c = text.charCodeAt(i);
    if (c === CLOSE_ARRAY) return;
    if (c !== COMMA)
      throw new SyntaxError(
        i >= text.length ? 'unexpected end of JSON input' : `invalid character after array element [${index}]`,
      );
    i = skipSpace(text, i + 1);
  }
}

/** The error for an array past maxElements, with its element count (one more scan, which allocates nothing). */
function* tooManyElements(
  text: string,
  start: number,
  bounds: JsonArrayBounds,
  what: string,
): SlicedWork<ParseBoundsError> {
  let elements = 1;
  for (let i = skipSpace(text, start + 1); i < text.length && text.charCodeAt(i) !== CLOSE_ARRAY; elements++) {
    i = skipSpace(text, (yield* scanValue(text, i)).end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
    else break;
  }
  return new ParseBoundsError(
    `${what} has ${elements} elements; the limit is ${bounds.maxElements}, so it was not parsed`,
  );
}

/** A member of a top-level object: its name and where its value lies in the text, unparsed. */
export interface JsonMember {
  readonly name: string;
  /** The value's first and one-past-last index. */
  readonly start: number;
  readonly end: number;
}

/** Member names longer than this are not decoded: no key we read is near it. */
const MAX_MEMBER_NAME_CHARS = 1024;
/** Members of a top-level object read member by member: documents and envelopes have a handful. */
const MAX_MEMBERS = 1024;

/**
 * The members of the object that is the whole of `text` (whitespace around it aside), found by scanning: no value is
 * parsed, so a document is read member by member. Undefined when `text` is not one object in form (a syntax error
 * within a value is left for that value's parse). A name too long to be one we read is given as its length. Throws a
 * ParseBoundsError past MAX_MEMBERS, naming `what`.
 */
export function* jsonObjectMembers(text: string, what: string): SlicedWork<JsonMember[] | undefined> {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  const members: JsonMember[] = [];
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_OBJECT) return skipSpace(text, i + 1) === text.length ? members : undefined;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const nameEnd = (yield* scanValue(text, i)).end;
    const name =
      nameEnd - i <= MAX_MEMBER_NAME_CHARS
        ? decodeName(text.slice(i, nameEnd))
        : `(a name of ${nameEnd - i} characters)`;
    if (name === undefined) return undefined;
    i = skipSpace(text, nameEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const start = skipSpace(text, i + 1);
    if (start >= text.length) return undefined;
    const { end } = yield* scanValue(text, start);
    members.push({ name, start, end });
    if (members.length > MAX_MEMBERS)
      throw new ParseBoundsError(`${what} has more than ${MAX_MEMBERS} top-level members, so it was not parsed`);
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === CLOSE_OBJECT) return skipSpace(text, i + 1) === text.length ? members : undefined;
    if (c !== COMMA) return undefined;
    i = skipSpace(text, i + 1);
  }
}

function decodeName(quoted: string): string | undefined {
  try {
    const name: unknown = JSON.parse(quoted);
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where the array to read element by element starts: the document itself when it is an array, else the array under
 * the member `key` of a top-level object (member names compared case-insensitively, the last one winning, as Go's
 * decoder and JSON.parse do), found without parsing the other members. Undefined when the document is neither.
 */
export function* jsonArrayStart(text: string, key: string, what: string): SlicedWork<number | undefined> {
  const start = skipSpace(text, 0);
  if (text.charCodeAt(start) === OPEN_ARRAY) return start;
  const member = (yield* jsonObjectMembers(text, what))?.findLast((m) => m.name.toLowerCase() === key);
  return member && text.charCodeAt(member.start) === OPEN_ARRAY ? member.start : undefined;
}
