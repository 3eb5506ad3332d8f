// The UFM port list: where it is fetched from and how its JSON is decoded
// (04-discovery §5.4). Mirrors the URL building and the json.Decoder use in
// pkg/controllers/hypernode/discovery/ufm/ufm.go: only the first JSON value
// counts, field names match case-insensitively, and a type mismatch fails
// the whole response.

export const PORTS_PATH = '/ufmRest/resources/ports';

/** One UFM port as the discoverer uses it. */
export interface UfmPort {
  description: string;
  tier: number;
  system_name: string;
  node_description: string;
  peer_node_name: string;
}

/** `endpoint` → the ports URL; the scheme defaults to https and trailing slashes go. */
export function portsUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  const withScheme = base.startsWith('http://') || base.startsWith('https://') ? base : `https://${base}`;
  return withScheme + PORTS_PATH;
}

const STRING_FIELDS = ['description', 'system_name', 'node_description', 'peer_node_name'] as const;

/** The end index (exclusive) of the JSON value starting at `start`, found by scanning. */
function endOfFirstValue(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth <= 0) return i + 1;
    } else if (depth === 0 && /[\s,:]/.test(c!)) return i;
  }
  return text.length;
}

function describe(x: unknown): string {
  return x === null ? 'null' : Array.isArray(x) ? 'array' : typeof x === 'object' ? 'object' : typeof x;
}

function decodePort(raw: unknown, index: number): UfmPort {
  const port: UfmPort = { description: '', tier: 0, system_name: '', node_description: '', peer_node_name: '' };
  if (raw === null) return port; // Go: null into a struct leaves it zero
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`cannot decode ${describe(raw)} into port [${index}]`);
  for (const [key, value] of Object.entries(raw)) {
    const name = key.toLowerCase();
    if (value === null) continue;
    if (name === 'tier') {
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`cannot decode ${describe(value)} ${JSON.stringify(value)} into port [${index}].tier of type int`);
      port.tier = value;
    } else if ((STRING_FIELDS as readonly string[]).includes(name)) {
      if (typeof value !== 'string') throw new Error(`cannot decode ${describe(value)} into port [${index}].${name} of type string`);
      port[name as (typeof STRING_FIELDS)[number]] = value;
    }
  }
  return port;
}

/**
 * The first JSON value of `body`. Almost every answer is exactly one value,
 * which parses directly; only when that fails is the first value cut out
 * (a character scan and a copy of a body of up to tens of MiB).
 */
function parseFirstValue(body: string, start: number): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return JSON.parse(body.slice(start, endOfFirstValue(body, start)));
  }
}

/** Decodes the first JSON value of `body` as a port list; `null` is an empty list. Throws on anything else. */
export function decodePorts(body: string): UfmPort[] {
  const start = body.search(/\S/);
  if (start < 0) throw new Error('unexpected end of JSON input');
  const value = parseFirstValue(body, start);
  if (value === null) return [];
  if (!Array.isArray(value)) throw new Error(`cannot decode ${describe(value)} into a port list`);
  return value.map(decodePort);
}
