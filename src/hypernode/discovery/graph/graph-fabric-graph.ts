// The graph source's document (docs/configuration.md, "The graph document"):
// the switches, hosts and links of one fabric, JSON or YAML, checked entry by
// entry into the fabric layer's graph. Any bad entry rejects the whole
// document with an error naming the entry (`links[3].b`), so a half-read
// file never publishes half a tree. A JSON document is read entry by entry
// from its text (bounded-json.ts), so it never exists as one object tree, and
// in steps (sliced-work.ts), so the controller answers its probes meanwhile;
// a YAML one is measured before it is composed (bounded-yaml.ts). A document
// that is not a graph at all is described by its kind and size and a syntax
// error by its line and column, never quoted: the file or URL may hold
// anything, a token or a key included.

import { isMapping } from '../../../util/is-mapping.ts';
import { parse as parseYaml } from 'yaml';
import { describeInput, quoteInput } from '../../../util/input-fragment.ts';
import { describeSyntaxError, quietCause } from '../../../util/syntax-error.ts';
import type { FabricGraph, FabricHost, FabricLink, FabricLinkEnd, FabricSwitch } from '../fabric/fabric-graph.ts';
import { refuseUnknownKeys } from '../../config/unknown-keys.ts';
import { fabricName } from '../../model/fabric-names.ts';
import {
  type JsonArrayBounds,
  jsonArrayElements,
  jsonObjectMembers,
  type ParseBounds,
  ParseBoundsError,
  parseBoundedJson,
} from '../../../util/bounded-json.ts';
import { checkYamlBoundsSteps } from '../../../util/bounded-yaml.ts';
import { runWhole, type SlicedWork } from '../../../util/sliced-work.ts';

const DOCUMENT_KEYS = ['switches', 'hosts', 'links'];
const SWITCH_KEYS = ['id', 'name'];
const LINK_KEYS = ['a', 'b'];
const END_KEYS = ['switch', 'host', 'port'];
/** A switch id becomes the tail of HyperNode names: lower-case alphanumerics and '-', as a DNS label. */
const SWITCH_ID = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const quote = (x: unknown) => quoteInput(x);

/** Hands `visit` each entry of a list of the document, pausing after each (sliced-work.ts). */
function* eachEntry(
  raw: unknown,
  where: string,
  required: boolean,
  visit: (entry: unknown, index: number) => void,
): SlicedWork<void> {
  if (raw === undefined || raw === null) {
    if (required) throw new Error(`${where} is missing: want a list`);
    return;
  }
  if (raw instanceof JsonList) {
    yield* raw.each(visit);
    return;
  }
  if (!Array.isArray(raw)) throw new Error(`${where} must be a list, got ${quote(raw)}`);
  for (const [i, entry] of raw.entries()) {
    visit(entry, i);
    yield;
  }
}

/** A non-empty string or a number as text, kept as a name (model/fabric-names.ts). */
function text(raw: unknown, where: string): string {
  if (typeof raw === 'number') return String(raw);
  if (typeof raw !== 'string' || raw === '') throw new Error(`${where} must be a non-empty string, got ${quote(raw)}`);
  return fabricName(raw);
}

function parseSwitch(raw: unknown, where: string): FabricSwitch {
  const m = isMapping(raw) ? raw : { id: raw };
  refuseUnknownKeys(m, SWITCH_KEYS, where);
  const id = text(m.id, `${where}.id`);
  if (!SWITCH_ID.test(id))
    throw new Error(
      `${where}.id ${quote(id)} is not usable in HyperNode names: want at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit`,
    );
  return { id, name: m.name === undefined ? id : text(m.name, `${where}.name`) };
}

function parseEnd(raw: unknown, where: string, switches: ReadonlySet<string>): FabricLinkEnd {
  if (!isMapping(raw))
    throw new Error(
      `${where} must be a mapping {switch: <id>, port: <port>} or {host: <name>, port: <port>}, got ${quote(raw)}`,
    );
  refuseUnknownKeys(raw, END_KEYS, where);
  if ((raw.switch === undefined) === (raw.host === undefined))
    throw new Error(`${where} must name exactly one of switch or host`);
  const port = raw.port === undefined ? '' : text(raw.port, `${where}.port`);
  if (raw.host !== undefined) return { kind: 'host', name: text(raw.host, `${where}.host`), port };
  const id = text(raw.switch, `${where}.switch`);
  if (!switches.has(id)) throw new Error(`${where}.switch ${quote(id)} is not in switches`);
  return { kind: 'switch', id, port };
}

/**
 * What one entry of a JSON document's lists may build (a link is `{a: {switch, port}, b: {host, port}}`, 9 values in
 * 3 levels), and how many entries a list may have: an 8-rail fabric of 60,000 hosts has about 500,000 links, more than
 * the 16 MiB a graph URL may answer (GRAPH_MAX_BODY_BYTES) holds.
 */
export const GRAPH_ENTRY_BOUNDS: JsonArrayBounds = { maxDepth: 16, maxValues: 1_000, maxElements: 500_000 };
/**
 * What a YAML graph document may build: composing YAML costs about 15 µs and a few hundred bytes a value, so 100,000
 * values (some 10,000 links) take about a second, and the composer cannot pause for the probes; a larger fabric's
 * document is written as JSON.
 */
export const GRAPH_YAML_BOUNDS: ParseBounds = { maxDepth: 64, maxValues: 100_000 };
/**
 * The longest YAML document measured at all: 100,000 values take some 2 MiB, and measuring takes about a second a
 * MiB of CPU (in slices), so a longer one is refused by its length alone.
 */
export const GRAPH_YAML_MAX_BYTES = 4 * 1024 * 1024;

/** A list of a JSON document, read from the text entry by entry when it is walked. */
class JsonList {
  constructor(
    private readonly body: string,
    private readonly start: number,
    private readonly where: string,
  ) {}

  each(visit: (entry: unknown, index: number) => void): SlicedWork<void> {
    return jsonArrayElements(this.body, this.start, GRAPH_ENTRY_BOUNDS, this.where, visit);
  }
}

/**
 * The document's top level: for a JSON object each member, a list kept as a JsonList and any other value parsed
 * within GRAPH_ENTRY_BOUNDS; anything else (a YAML document, or text that only starts like JSON, such as a YAML flow
 * mapping) measured in steps and composed whole within GRAPH_YAML_BOUNDS. Undefined for an empty document.
 */
function* topLevel(body: string): SlicedWork<unknown> {
  const members = /^\s*\{/.test(body) ? yield* jsonObjectMembers(body, 'the document') : undefined;
  if (members) {
    try {
      const doc: Record<string, unknown> = {};
      for (const m of members)
        doc[m.name] =
          body.charCodeAt(m.start) === 0x5b
            ? new JsonList(body, m.start, m.name)
            : yield* parseBoundedJson(body.slice(m.start, m.end), GRAPH_ENTRY_BOUNDS, m.name);
      return doc;
    } catch (err) {
      if (err instanceof ParseBoundsError) throw err;
      // not JSON after all: YAML reads it, or says where it breaks
    }
  } else if (/^\s*\[/.test(body)) {
    try {
      return yield* parseBoundedJson(body, GRAPH_ENTRY_BOUNDS, 'the document');
    } catch (err) {
      if (err instanceof ParseBoundsError) throw err;
    }
  }
  if (body.length > GRAPH_YAML_MAX_BYTES)
    throw new ParseBoundsError(
      `the document is ${(body.length / 2 ** 20).toFixed(1)} MiB of YAML; YAML is read up to ${GRAPH_YAML_MAX_BYTES / 2 ** 20} MiB, so write a document this large as JSON`,
    );
  yield* checkYamlBoundsSteps(body, GRAPH_YAML_BOUNDS, 'the document');
  // The library's default prints each warning with a frame of the surrounding lines to stderr: errors only.
  return parseYaml(body, { logLevel: 'error' });
}

/** Parses and checks a graph document, one entry a step (sliced-work.ts); throws naming the first bad entry. */
export function* graphDecoder(body: string): SlicedWork<FabricGraph> {
  let doc: unknown;
  try {
    doc = yield* topLevel(body);
  } catch (err) {
    if (err instanceof ParseBoundsError) throw err;
    throw new Error(`not JSON or YAML (${describeInput(body)}): ${describeSyntaxError(err, body) ?? 'syntax error'}`, {
      cause: quietCause(err, body),
    });
  }
  if (!isMapping(doc))
    throw new Error(
      `want a mapping with switches, hosts and links, got ${doc === null || doc === undefined ? 'an empty document' : describeInput(doc)}`,
    );
  refuseUnknownKeys(doc, DOCUMENT_KEYS, 'the graph');
  const switches: FabricSwitch[] = [];
  const ids = new Set<string>();
  yield* eachEntry(doc.switches, 'switches', true, (raw, i) => {
    const s = parseSwitch(raw, `switches[${i}]`);
    if (ids.has(s.id)) throw new Error(`switches[${i}].id ${quote(s.id)} is listed twice`);
    ids.add(s.id);
    switches.push(s);
  });
  if (switches.length === 0) throw new Error('switches is empty: a fabric needs at least one switch');
  const hostNames = new Set<string>();
  yield* eachEntry(doc.hosts, 'hosts', false, (h, i) => {
    const where = `hosts[${i}]`;
    if (isMapping(h)) refuseUnknownKeys(h, ['name'], where);
    const name = text(isMapping(h) ? h.name : h, isMapping(h) ? `${where}.name` : where);
    if (hostNames.has(name)) throw new Error(`${where} ${quote(name)} is listed twice`);
    hostNames.add(name);
  });
  const links: FabricLink[] = [];
  yield* eachEntry(doc.links, 'links', true, (raw, i) => {
    const where = `links[${i}]`;
    if (!isMapping(raw)) throw new Error(`${where} must be a mapping {a: <end>, b: <end>}, got ${quote(raw)}`);
    refuseUnknownKeys(raw, LINK_KEYS, where);
    const link = { a: parseEnd(raw.a, `${where}.a`, ids), b: parseEnd(raw.b, `${where}.b`, ids) };
    for (const end of [link.a, link.b]) if (end.kind === 'host') hostNames.add(end.name);
    links.push(link);
  });
  const hosts: FabricHost[] = [...hostNames].map((name) => ({ name }));
  return { switches, hosts, links };
}

/** graphDecoder run whole. */
export const parseGraphDocument = (body: string): FabricGraph => runWhole(graphDecoder(body));
