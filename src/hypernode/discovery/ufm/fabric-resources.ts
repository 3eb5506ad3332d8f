// The three UFM resources fabric mode reads, decoded to the few fields it
// uses: systems (what each device is), links (who is cabled to whom) and the
// brief port list (which ports are up). Each answer is a JSON array, or an
// object whose `data` member is one (UFM wraps paged answers, e.g. links
// requested with page_number/rpp, that way). Elements are parsed one at a
// time, as for the legacy ports answer, so a large fabric's answer never
// exists as one object tree. Member names match case-insensitively and
// unknown members are ignored; a member of the wrong type fails the answer.

import { describe, UFM_ANSWER_BOUNDS } from './legacy-ports.ts';
import { isMapping } from '../../../util/is-mapping.ts';
import { fabricName } from '../../model/fabric-names.ts';
import { jsonArrayElements, jsonArrayStart, parseBoundedJson } from '../../../util/bounded-json.ts';
import { runWhole, type SlicedWork } from '../../../util/sliced-work.ts';

export const RESOURCE_PATHS = {
  systems: '/resources/systems',
  links: '/resources/links',
  /** Brief objects carry the port name and its states, a tenth of the full object. */
  ports: '/resources/ports?brief=true',
} as const;
export type FabricResource = keyof typeof RESOURCE_PATHS;

export interface UfmSystem {
  guid: string;
  name: string;
  type: string;
  role: string;
  description: string;
  /** Port names, `<port guid>_<number>`. */
  ports: string[];
  siteName: string;
}

export interface LinkEnd {
  guid: string;
  port: string;
}

export interface UfmLink {
  a: LinkEnd;
  b: LinkEnd;
}

/** Port name → whether its logical state is Active. */
export type PortStates = Map<string, boolean>;

type Fields = Record<string, unknown>;

/**
 * Hands `visit` each element of the answer (an array, or the `data` array of an envelope) as a lower-cased field map,
 * parsed one at a time within UFM_ANSWER_BOUNDS, in steps: an envelope's other members are skipped unparsed.
 */
function* eachElement(body: string, what: string, visit: (fields: Fields) => void): SlicedWork<void> {
  if (body.search(/\S/) < 0) throw new Error(`${what}: unexpected end of JSON input`);
  const fields = (raw: unknown, index: number): Fields => {
    if (!isMapping(raw)) throw new Error(`${what}: cannot decode ${describe(raw)} into element [${index}]`);
    const out: Fields = {};
    for (const [k, v] of Object.entries(raw)) out[k.toLowerCase()] = v;
    return out;
  };
  const start = yield* jsonArrayStart(body, 'data', `the ${what} answer`);
  if (start === undefined) {
    const value = yield* parseBoundedJson(body, UFM_ANSWER_BOUNDS, `the ${what} answer`);
    throw new Error(`${what}: want a JSON array or an object with a "data" array, got ${describe(value)}`);
  }
  yield* jsonArrayElements(body, start, UFM_ANSWER_BOUNDS, `the ${what} answer`, (element, i) =>
    visit(fields(element, i)),
  );
}

/** A member as text, kept as a name (model/fabric-names.ts): a host sets its own node description. */
function text(f: Fields, key: string, what: string): string {
  const v = f[key];
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string') throw new Error(`${what}: cannot decode ${describe(v)} into ${key} of type string`);
  return fabricName(v);
}

/** The systems answer, one element a step (sliced-work.ts). */
export function* systemsDecoder(body: string): SlicedWork<UfmSystem[]> {
  const out: UfmSystem[] = [];
  yield* eachElement(body, 'systems', (f) => {
    const ports = f.ports ?? [];
    if (!Array.isArray(ports)) throw new Error(`systems: cannot decode ${describe(ports)} into ports of type list`);
    out.push({
      guid: text(f, 'system_guid', 'systems') || text(f, 'guid', 'systems'),
      name: text(f, 'system_name', 'systems'),
      type: text(f, 'type', 'systems').toLowerCase(),
      role: text(f, 'role', 'systems').toLowerCase(),
      description: text(f, 'description', 'systems'),
      // With ports=true UFM lists port objects instead of names.
      ports: ports
        .map((p) =>
          fabricName(typeof p === 'string' ? p : p && typeof p === 'object' ? String((p as Fields).name ?? '') : ''),
        )
        .filter((p) => p !== ''),
      siteName: text(f, 'site_name', 'systems'),
    });
  });
  return out;
}

/** The links answer, one element a step. */
export function* linksDecoder(body: string): SlicedWork<UfmLink[]> {
  const out: UfmLink[] = [];
  yield* eachElement(body, 'links', (f) =>
    out.push({
      a: { guid: text(f, 'source_guid', 'links'), port: text(f, 'source_port', 'links') },
      b: { guid: text(f, 'destination_guid', 'links'), port: text(f, 'destination_port', 'links') },
    }),
  );
  return out;
}

/** The brief ports answer, one element a step. */
export function* portStatesDecoder(body: string): SlicedWork<PortStates> {
  const out: PortStates = new Map();
  yield* eachElement(body, 'ports', (f) => {
    const name = text(f, 'name', 'ports') || `${text(f, 'guid', 'ports')}_${text(f, 'number', 'ports')}`;
    out.set(name, text(f, 'logical_state', 'ports').toLowerCase() === 'active');
  });
  return out;
}

/** The decoders run whole, for previews and tests. */
export const decodeSystems = (body: string): UfmSystem[] => runWhole(systemsDecoder(body));
export const decodeLinks = (body: string): UfmLink[] => runWhole(linksDecoder(body));
export const decodePortStates = (body: string): PortStates => runWhole(portStatesDecoder(body));
