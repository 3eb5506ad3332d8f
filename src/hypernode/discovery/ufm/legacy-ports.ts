// The UFM port list: where it is fetched from and how its JSON is decoded
// (GET <endpoint>/ufmRest/resources/ports). Mirrors the URL building and the json.Decoder use in
// pkg/controllers/hypernode/discovery/ufm/ufm.go: only the first JSON value
// counts, field names match case-insensitively, and a type mismatch fails
// the whole response. A few more fields of a Computer port (its port names and
// state) are read leniently for fabric health.

import { isMapping } from '../../../util/is-mapping.ts';
import { parseJson } from '../../../util/syntax-error.ts';

/** The port list under the authentication scheme's prefix (Go: /ufmRest/resources/ports). */
export const PORTS_RESOURCE_PATH = '/resources/ports';

/** One UFM port as the discoverer uses it. */
export interface UfmPort {
  description: string;
  tier: number;
  system_name: string;
  node_description: string;
  peer_node_name: string;
  /**
   * Read for fabric health only (legacy-links.ts), and leniently: Go ignores them, so a value of another type is left
   * out, never an error.
   */
  dname?: string;
  number?: number;
  logical_state?: string;
  peer_port_dname?: string;
}

const STRING_FIELDS = ['description', 'system_name', 'node_description', 'peer_node_name'] as const;
const LINK_FIELDS = ['dname', 'logical_state', 'peer_port_dname'] as const;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }
/** Whitespace, `,`, `:`, `]` and `}`: what ends a number, true, false or null. */
const SCALAR_END = /[\s,:\]}]/;

/**
 * The end index (exclusive) of the JSON value starting at `start`, found by
 * scanning; text.length when it is unterminated. Only delimits the value:
 * JSON.parse of the slice validates it.
 */
function endOfValue(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first !== QUOTE && !OPENERS.has(first)) {
    let i = start;
    while (i < text.length && !SCALAR_END.test(text[i]!)) i++;
    return i;
  }
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (c === QUOTE) inString = true;
    else if (OPENERS.has(c)) depth++;
    else if (CLOSERS.has(c) && --depth === 0) return i + 1;
  }
  return text.length;
}

const skipSpace = (text: string, i: number): number => {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
};

/**
 * The elements of the JSON array opening at `start`, each as its own text.
 * Parsing them one at a time means the whole answer never exists as one
 * object tree: each port is reduced to the five fields we use and the rest is
 * garbage at once, which keeps the peak memory of a large fabric's answer
 * near the size of its text. Throws a SyntaxError on a malformed array.
 */
export function* arrayElements(text: string, start: number): Generator<string> {
  let i = skipSpace(text, start + 1);
  if (text[i] === ']') return;
  for (;;) {
    if (i >= text.length) throw new SyntaxError('unexpected end of JSON input');
    const end = endOfValue(text, i);
    yield text.slice(i, end);
    i = skipSpace(text, end);
    if (text[i] === ']') return;
    if (text[i] !== ',')
      throw new SyntaxError(
        i >= text.length
          ? 'unexpected end of JSON input'
          : `invalid character ${JSON.stringify(text[i])} after array element`,
      );
    i = skipSpace(text, i + 1);
  }
}

export function describe(x: unknown): string {
  return x === null ? 'null' : Array.isArray(x) ? 'array' : typeof x === 'object' ? 'object' : typeof x;
}

function decodePort(raw: unknown, index: number): UfmPort {
  const port: UfmPort = { description: '', tier: 0, system_name: '', node_description: '', peer_node_name: '' };
  if (raw === null) return port; // Go: null into a struct leaves it zero
  if (!isMapping(raw)) throw new Error(`cannot decode ${describe(raw)} into port [${index}]`);
  for (const [key, value] of Object.entries(raw)) {
    const name = key.toLowerCase();
    if (value === null) continue;
    if (name === 'tier') {
      if (typeof value !== 'number' || !Number.isInteger(value))
        // As Go's json says it: a number by its value, anything else by its type only.
        throw new Error(
          `cannot decode ${typeof value === 'number' ? `number ${value}` : describe(value)} into port [${index}].tier of type int`,
        );
      port.tier = value;
    } else if ((STRING_FIELDS as readonly string[]).includes(name)) {
      if (typeof value !== 'string')
        throw new Error(`cannot decode ${describe(value)} into port [${index}].${name} of type string`);
      port[name as (typeof STRING_FIELDS)[number]] = value;
    } else if ((LINK_FIELDS as readonly string[]).includes(name)) {
      if (typeof value === 'string') port[name as (typeof LINK_FIELDS)[number]] = value;
    } else if (name === 'number' && Number.isInteger(value)) port.number = value as number;
  }
  return port;
}

/** Decodes the first JSON value of `body` as a port list; `null` is an empty list. Throws on anything else. */
export function decodePorts(body: string): UfmPort[] {
  const start = body.search(/\S/);
  if (start < 0) throw new Error('unexpected end of JSON input');
  if (body[start] === '[') {
    const ports: UfmPort[] = [];
    for (const element of arrayElements(body, start))
      ports.push(decodePort(parseJson(element, `port [${ports.length}]`), ports.length));
    return ports;
  }
  const value: unknown = parseJson(body.slice(start, endOfValue(body, start)), 'the answer');
  if (value === null) return [];
  throw new Error(`cannot decode ${describe(value)} into a port list`);
}
