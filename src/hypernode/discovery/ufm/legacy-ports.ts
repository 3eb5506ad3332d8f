// The UFM port list: where it is fetched from and how its JSON is decoded
// (GET <endpoint>/ufmRest/resources/ports). Mirrors the URL building and the json.Decoder use in
// pkg/controllers/hypernode/discovery/ufm/ufm.go: only the first JSON value
// counts, field names match case-insensitively, and a type mismatch fails
// the whole response. A few more fields of a Computer port (its port names and
// state) are read leniently for fabric health. Every text is kept as a name
// (model/fabric-names.ts): a host sets its own node description.

import { isMapping } from '../../../util/is-mapping.ts';
import { fabricName } from '../../model/fabric-names.ts';
import { type JsonArrayBounds, jsonArrayElements, parseBoundedJson } from '../../../util/bounded-json.ts';
import { runWhole, type SlicedWork } from '../../../util/sliced-work.ts';

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

/**
 * What one UFM answer may build. A port object nests 2 or 3 levels and holds about 40 values; a system listed with
 * its port objects (`ports=true`) a few thousand. A 64 MiB answer (the body cap) holds about 60,000 full port objects
 * or 300,000 brief ones. Beyond these the answer is refused before it is parsed (src/util/bounded-json.ts): each
 * element is parsed on its own, so an answer costs its text, one element and what is decoded from it.
 */
export const UFM_ANSWER_BOUNDS: JsonArrayBounds = { maxDepth: 64, maxValues: 100_000, maxElements: 300_000 };

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
      port[name as (typeof STRING_FIELDS)[number]] = fabricName(value);
    } else if ((LINK_FIELDS as readonly string[]).includes(name)) {
      if (typeof value === 'string') port[name as (typeof LINK_FIELDS)[number]] = fabricName(value);
    } else if (name === 'number' && Number.isInteger(value)) port.number = value as number;
  }
  return port;
}

/**
 * Decodes the first JSON value of `body` as a port list, one element a step (sliced-work.ts); `null` is an empty
 * list. Throws on anything else.
 */
export function* portsDecoder(body: string): SlicedWork<UfmPort[]> {
  const start = body.search(/\S/);
  if (start < 0) throw new Error('unexpected end of JSON input');
  if (body[start] === '[') {
    const ports: UfmPort[] = [];
    yield* jsonArrayElements(body, start, UFM_ANSWER_BOUNDS, 'the ports answer', (element, i) =>
      ports.push(decodePort(element, i)),
    );
    return ports;
  }
  const value = yield* parseBoundedJson(body, UFM_ANSWER_BOUNDS, 'the ports answer');
  if (value === null) return [];
  throw new Error(`cannot decode ${describe(value)} into a port list`);
}

/** portsDecoder run whole. */
export const decodePorts = (body: string): UfmPort[] => runWhole(portsDecoder(body));
