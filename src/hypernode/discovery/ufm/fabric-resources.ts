// The three UFM resources fabric mode reads, decoded to the few fields it
// uses: systems (what each device is), links (who is cabled to whom) and the
// brief port list (which ports are up). Each answer is a JSON array, or an
// object whose `data` member is one (UFM wraps paged answers, e.g. links
// requested with page_number/rpp, that way). Elements are parsed one at a
// time, as for the legacy ports answer, so a large fabric's answer never
// exists as one object tree. Member names match case-insensitively and
// unknown members are ignored; a member of the wrong type fails the answer.

import { arrayElements, describe } from './legacy-ports.ts';
import { isMapping } from '../../../util/is-mapping.ts';
import { parseJson } from '../../../util/syntax-error.ts';

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

/** Each element of the answer (an array, or the `data` array of an envelope) as a lower-cased field map. */
function* elements(body: string, what: string): Generator<Fields> {
  const start = body.search(/\S/);
  if (start < 0) throw new Error(`${what}: unexpected end of JSON input`);
  let index = 0;
  const fields = (raw: unknown): Fields => {
    if (!isMapping(raw)) throw new Error(`${what}: cannot decode ${describe(raw)} into element [${index}]`);
    const out: Fields = {};
    for (const [k, v] of Object.entries(raw)) out[k.toLowerCase()] = v;
    return out;
  };
  if (body[start] === '[') {
    for (const element of arrayElements(body, start)) {
      yield fields(parseJson(element, `${what}: element [${index}]`));
      index++;
    }
    return;
  }
  const value: unknown = parseJson(body, `the ${what} answer`);
  const data = value !== null && typeof value === 'object' && !Array.isArray(value) ? fields(value).data : undefined;
  if (!Array.isArray(data))
    throw new Error(`${what}: want a JSON array or an object with a "data" array, got ${describe(value)}`);
  for (const raw of data) {
    yield fields(raw);
    index++;
  }
}

function text(f: Fields, key: string, what: string): string {
  const v = f[key];
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string') throw new Error(`${what}: cannot decode ${describe(v)} into ${key} of type string`);
  return v;
}

export function decodeSystems(body: string): UfmSystem[] {
  const out: UfmSystem[] = [];
  for (const f of elements(body, 'systems')) {
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
        .map((p) => (typeof p === 'string' ? p : p && typeof p === 'object' ? String((p as Fields).name ?? '') : ''))
        .filter((p) => p !== ''),
      siteName: text(f, 'site_name', 'systems'),
    });
  }
  return out;
}

export function decodeLinks(body: string): UfmLink[] {
  const out: UfmLink[] = [];
  for (const f of elements(body, 'links')) {
    out.push({
      a: { guid: text(f, 'source_guid', 'links'), port: text(f, 'source_port', 'links') },
      b: { guid: text(f, 'destination_guid', 'links'), port: text(f, 'destination_port', 'links') },
    });
  }
  return out;
}

export function decodePortStates(body: string): PortStates {
  const out: PortStates = new Map();
  for (const f of elements(body, 'ports')) {
    const name = text(f, 'name', 'ports') || `${text(f, 'guid', 'ports')}_${text(f, 'number', 'ports')}`;
    out.set(name, text(f, 'logical_state', 'ports').toLowerCase() === 'active');
  }
  return out;
}
