// Label and field selectors from list/watch query strings, parsed with the
// syntax and errors of apimachinery pkg/labels/selector.go and
// pkg/fields/selector.go: =, ==, !=, in, notin, exists, !key for labels;
// metadata.name and metadata.namespace for fields.

import { badRequest } from './status.ts';
import type { Obj } from './store.ts';

type Requirement = { key: string; op: 'in' | 'notin'; values: string[] } | { key: string; op: 'exists' | '!' };

export type Matcher = (obj: Readonly<Obj>) => boolean;

const KEY_RE =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Splits on commas that are not inside parentheses. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function parseRequirement(term: string): Requirement {
  const t = term.trim();
  const fail = (why: string): never => {
    throw badRequest(`unable to parse requirement: ${why}`);
  };
  const checkKey = (k: string): string => {
    if (!KEY_RE.test(k))
      fail(
        `invalid label key "${k}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      );
    return k;
  };
  let m: RegExpMatchArray | null;
  if ((m = t.match(/^!\s*(\S+)$/))) return { key: checkKey(m[1]), op: '!' };
  if ((m = t.match(/^(\S+?)\s+(in|notin)\s*\((.*)\)$/))) {
    const values = m[3].split(',').map((v) => v.trim());
    return { key: checkKey(m[1]), op: m[2] as 'in' | 'notin', values };
  }
  if ((m = t.match(/^([^=!\s]+)\s*(==|!=|=)\s*(\S*)$/))) {
    const op = m[2] === '!=' ? 'notin' : 'in';
    return { key: checkKey(m[1]), op, values: [m[3]] };
  }
  if ((m = t.match(/^([^=!\s()]+)$/))) return { key: checkKey(m[1]), op: 'exists' };
  return fail(`found '${t}', expected: !, identifier, or 'end of string'`);
}

function matches(labels: Record<string, string>, r: Requirement): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.op) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'in':
      return has && r.values.includes(labels[r.key]);
    case 'notin':
      return !has || !r.values.includes(labels[r.key]);
  }
}

export function parseLabelSelector(s: string | null): Matcher {
  if (!s || !s.trim()) return () => true;
  const reqs = splitTerms(s).map(parseRequirement);
  return (obj) => {
    const labels = (obj.metadata?.labels ?? {}) as Record<string, string>;
    return reqs.every((r) => matches(labels, r));
  };
}

export interface FieldSelector {
  matches: Matcher;
  /** The name a `metadata.name=` term pins, used by authorization like requestinfo does. */
  name?: string;
}

const FIELDS: Record<string, (obj: Readonly<Obj>) => string> = {
  'metadata.name': (o) => o.metadata?.name ?? '',
  'metadata.namespace': (o) => o.metadata?.namespace ?? '',
};

export function parseFieldSelector(s: string | null): FieldSelector {
  if (!s || !s.trim()) return { matches: () => true };
  const terms = s.split(',').map((t) => {
    const m = t.trim().match(/^([^=!]+)(==|!=|=)(.*)$/);
    if (!m) throw badRequest(`invalid selector: '${s}'; can't understand '${t}'`);
    const [, field, op, value] = m;
    const get = FIELDS[field];
    if (!get) throw badRequest(`field label not supported: ${field}`);
    return { field, neg: op === '!=', value, get };
  });
  const nameTerm = terms.find((t) => t.field === 'metadata.name' && !t.neg);
  return {
    matches: (obj) => terms.every((t) => (t.get(obj) === t.value) !== t.neg),
    name: nameTerm?.value,
  };
}
