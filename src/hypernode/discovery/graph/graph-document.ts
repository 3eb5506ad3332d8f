// The graph source's document (docs/configuration.md, "The graph document"):
// the switches, hosts and links of one fabric, JSON or YAML, checked entry by
// entry into the fabric layer's graph. Any bad entry rejects the whole
// document with an error naming the entry (`links[3].b`), so a half-read
// file never publishes half a tree. A document that is not a graph at all is
// described by its kind and size and a syntax error by its line and column,
// never quoted: the file or URL may hold anything, a token or a key included.

import { isMapping } from '../../../util/is-mapping.ts';
import { parse as parseYaml } from 'yaml';
import { describeInput, quoteInput } from '../../../util/input-fragment.ts';
import { describeSyntaxError, quietCause } from '../../../util/syntax-error.ts';
import type { FabricGraph, FabricHost, FabricLink, FabricLinkEnd, FabricSwitch } from '../fabric/fabric-graph.ts';
import { refuseUnknownKeys } from '../../config/unknown-keys.ts';

const DOCUMENT_KEYS = ['switches', 'hosts', 'links'];
const SWITCH_KEYS = ['id', 'name'];
const LINK_KEYS = ['a', 'b'];
const END_KEYS = ['switch', 'host', 'port'];
/** A switch id becomes the tail of HyperNode names: lower-case alphanumerics and '-', as a DNS label. */
const SWITCH_ID = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const quote = (x: unknown) => quoteInput(x);

function list(raw: unknown, where: string, required: boolean): unknown[] {
  if (raw === undefined || raw === null) {
    if (required) throw new Error(`${where} is missing: want a list`);
    return [];
  }
  if (!Array.isArray(raw)) throw new Error(`${where} must be a list, got ${quote(raw)}`);
  return raw;
}

function text(raw: unknown, where: string): string {
  if (typeof raw === 'number') return String(raw);
  if (typeof raw !== 'string' || raw === '') throw new Error(`${where} must be a non-empty string, got ${quote(raw)}`);
  return raw;
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
 * JSON through JSON.parse, anything else (or JSON.parse's failure, e.g. a YAML
 * flow mapping) through the YAML parser: a generated document of 8,000 hosts
 * parses in tens of milliseconds as JSON and takes seconds and hundreds of
 * MB as YAML.
 */
function parseText(body: string): unknown {
  if (/^\s*[[{]/.test(body)) {
    try {
      return JSON.parse(body);
    } catch {
      // not JSON after all: YAML reads it, or says where it breaks
    }
  }
  // The library's default prints each warning with a frame of the surrounding lines to stderr: errors only.
  return parseYaml(body, { logLevel: 'error' });
}

/** Parses and checks a graph document; throws naming the first bad entry. */
export function parseGraphDocument(body: string): FabricGraph {
  let doc: unknown;
  try {
    doc = parseText(body);
  } catch (err) {
    throw new Error(`not JSON or YAML (${describeInput(body)}): ${describeSyntaxError(err, body) ?? 'syntax error'}`, {
      cause: quietCause(err, body),
    });
  }
  if (!isMapping(doc))
    throw new Error(
      `want a mapping with switches, hosts and links, got ${doc === null || doc === undefined ? 'an empty document' : describeInput(doc)}`,
    );
  refuseUnknownKeys(doc, DOCUMENT_KEYS, 'the graph');
  const switches = list(doc.switches, 'switches', true).map((s, i) => parseSwitch(s, `switches[${i}]`));
  if (switches.length === 0) throw new Error('switches is empty: a fabric needs at least one switch');
  const ids = new Set<string>();
  switches.forEach((s, i) => {
    if (ids.has(s.id)) throw new Error(`switches[${i}].id ${quote(s.id)} is listed twice`);
    ids.add(s.id);
  });
  const hostNames = new Set<string>();
  list(doc.hosts, 'hosts', false).forEach((h, i) => {
    const where = `hosts[${i}]`;
    if (isMapping(h)) refuseUnknownKeys(h, ['name'], where);
    const name = text(isMapping(h) ? h.name : h, isMapping(h) ? `${where}.name` : where);
    if (hostNames.has(name)) throw new Error(`${where} ${quote(name)} is listed twice`);
    hostNames.add(name);
  });
  const links = list(doc.links, 'links', true).map((raw, i): FabricLink => {
    const where = `links[${i}]`;
    if (!isMapping(raw)) throw new Error(`${where} must be a mapping {a: <end>, b: <end>}, got ${quote(raw)}`);
    refuseUnknownKeys(raw, LINK_KEYS, where);
    const link = { a: parseEnd(raw.a, `${where}.a`, ids), b: parseEnd(raw.b, `${where}.b`, ids) };
    for (const end of [link.a, link.b]) if (end.kind === 'host') hostNames.add(end.name);
    return link;
  });
  const hosts: FabricHost[] = [...hostNames].map((name) => ({ name }));
  return { switches, hosts, links };
}
