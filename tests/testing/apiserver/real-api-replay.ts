// Replays the answers recorded from a real kube-apiserver
// (testing/apiserver/real-api/) against the stand-in and reports where the
// stand-in's answer differs: status, content type, trailing newline, and the
// body's shape — present fields, null vs [] vs absent, every value that is not
// volatile (kind, reason, code, details, messages, names, labels, spec), and
// for watches the event sequence. Volatile values are matched through the
// recordings' placeholders: `<RV#n>`, `<UID#n>`, `<CONTINUE#n>` bind to the
// stand-in's own value the first time they are seen and are substituted into
// later requests, so a sequence of writes replays as it was recorded.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, type Reply } from '../../../testing/apiserver-client.ts';
import type { ApiServer } from '../../../testing/apiserver/index.ts';

export const RECORDINGS_DIR = join(import.meta.dirname, '../../../testing/apiserver/real-api');

/** The recorder's User-Agent: the managedFields manager of every recorded write. */
export const RECORDER_USER_AGENT = 'realapi-recorder/v0.0.0 (linux/amd64) kubernetes/0000000/record';

export interface RecordedRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  identity: string;
  body?: unknown;
}

interface RecordedResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body?: unknown;
  bodyText?: string;
  bodyTrailingNewline?: boolean;
  events?: Array<{ tMs: number; line: { type: string; object: unknown } }>;
}

export interface RecordedCase {
  id: string;
  what: string;
  request?: RecordedRequest;
  response?: RecordedResponse;
  [note: string]: unknown;
}

interface Recording {
  about: string;
  cases: RecordedCase[];
}

export function loadRecording(file: string): Recording {
  return JSON.parse(readFileSync(join(RECORDINGS_DIR, file), 'utf8')) as Recording;
}

/** The credentials the recorder used, as the stand-in's tokens. */
export interface Identities {
  admin: string;
  /** A ServiceAccount without any RBAC grant. */
  noRbac: string;
}

const PLACEHOLDER = /<(RV|UID|CONTINUE)#(\d+)>|<TIME(\.6)?>|hn-gen-<GEN5>|<string of (\d+) chars: "(.)[^"]*"\.\.\.>/g;

/** Placeholder → the stand-in's value, learnt while comparing its answers. */
export class Bindings {
  readonly values = new Map<string, string>();

  /** `template` with every bound placeholder replaced by its value; unbound RVs by `fallbackRv`. */
  fill(template: string, fallbackRv: string): string {
    return template.replace(
      PLACEHOLDER,
      (
        whole,
        kind: string | undefined,
        n: string | undefined,
        _six,
        len: string | undefined,
        ch: string | undefined,
      ) => {
        if (len) return (ch ?? 'x').repeat(Number(len));
        if (!kind) return whole;
        const bound = this.values.get(`${kind}#${n}`);
        if (bound !== undefined) return bound;
        // An RV the recording learnt outside the replayed requests: the stand-in's current one.
        if (kind === 'RV') return fallbackRv;
        // A token no answer gave: the recorder sent garbage on purpose.
        if (kind === 'CONTINUE') return 'abcdefgh!';
        // A uid of an object the replay never met (an Event's subject): any uid, the same each time.
        const uid = randomUUID();
        this.values.set(`${kind}#${n}`, uid);
        return uid;
      },
    );
  }

  /** A recorded request body with placeholders filled (strings only; structure kept). */
  fillValue(v: unknown, fallbackRv: string): unknown {
    if (typeof v === 'string') return this.fill(v, fallbackRv);
    if (Array.isArray(v)) return v.map((x) => this.fillValue(x, fallbackRv));
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.fillValue(x, fallbackRv)]));
    return v;
  }

  /**
   * Whether `actual` fits the recorded string `template`: literal text equal,
   * placeholders matching their kind (binding them on first sight).
   */
  matches(template: string, actual: string): boolean {
    const kinds: Array<string | undefined> = [];
    let source = '';
    let last = 0;
    for (const m of template.matchAll(PLACEHOLDER)) {
      source += escapeRegExp(template.slice(last, m.index));
      last = m.index + m[0].length;
      if (m[1]) {
        kinds.push(`${m[1]}#${m[2]}`);
        source += m[1] === 'RV' ? '(\\d+)' : m[1] === 'UID' ? '([0-9a-f-]{36})' : '([A-Za-z0-9_=-]+)';
      } else if (m[0].startsWith('<TIME')) {
        source += m[3]
          ? '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z'
          : '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
      } else if (m[0].startsWith('hn-gen-')) {
        source += 'hn-gen-[a-z0-9]{5}';
      } else {
        source += `${escapeRegExp(m[5] ?? 'x')}{${m[4]}}`;
      }
    }
    source += escapeRegExp(template.slice(last));
    const found = new RegExp(`^${source}$`, 's').exec(actual);
    if (!found) return false;
    for (let i = 0; i < kinds.length; i++) {
      const key = kinds[i]!;
      const value = found[i + 1]!;
      const bound = this.values.get(key);
      if (bound === undefined) this.values.set(key, value);
      else if (bound !== value) return false;
    }
    return true;
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const describe = (v: unknown): string =>
  v === undefined
    ? 'absent'
    : v === null
      ? 'null'
      : Array.isArray(v)
        ? `[${v.length} items]`
        : typeof v === 'object'
          ? 'an object'
          : JSON.stringify(v).slice(0, 400);

/** Objects in an array are matched by metadata.name when they have one (a watch cache lists in no order). */
function nameOf(v: unknown): string | undefined {
  const name = (v as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  return typeof name === 'string' ? name : undefined;
}

/** Every difference between the recorded and the stand-in's value, as `path: recorded X, stand-in Y`. */
function compareValues(recorded: unknown, actual: unknown, path: string, b: Bindings, out: string[]): void {
  if (typeof recorded === 'string' && typeof actual === 'string') {
    if (!b.matches(recorded, actual)) out.push(`${path}: recorded ${describe(recorded)}, stand-in ${describe(actual)}`);
    return;
  }
  if (Array.isArray(recorded) && Array.isArray(actual)) {
    if (recorded.length !== actual.length) {
      out.push(`${path}: recorded ${describe(recorded)}, stand-in ${describe(actual)}`);
      return;
    }
    const byName = recorded.every((x) => nameOf(x) !== undefined);
    for (let i = 0; i < recorded.length; i++) {
      const name = byName ? nameOf(recorded[i]) : undefined;
      const other = name === undefined ? actual[i] : actual.find((x) => nameOf(x) === name);
      compareValues(recorded[i], other, `${path}[${name ?? i}]`, b, out);
    }
    return;
  }
  if (
    recorded &&
    actual &&
    typeof recorded === 'object' &&
    typeof actual === 'object' &&
    !Array.isArray(recorded) &&
    !Array.isArray(actual)
  ) {
    const r = recorded as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    for (const key of new Set([...Object.keys(r), ...Object.keys(a)]))
      compareValues(r[key], a[key], `${path}.${key}`, b, out);
    return;
  }
  if (recorded !== actual) out.push(`${path}: recorded ${describe(recorded)}, stand-in ${describe(actual)}`);
}

function header(h: Record<string, string | string[]> | Reply['headers'], name: string): string | undefined {
  const v = h[name];
  return v === undefined ? undefined : Array.isArray(v) ? v.join(', ') : String(v);
}

function tokenFor(identity: string, ids: Identities): string {
  if (identity.startsWith('admin')) return ids.admin;
  if (identity.startsWith('system:serviceaccount')) return ids.noRbac;
  if (identity.startsWith('unknown')) return 'no-such-token';
  return ''; // none, or an empty bearer (the client sends no token either way)
}

/** Sends one recorded request (placeholders filled) the way the recorder did. */
export async function replay(api: ApiServer, req: RecordedRequest, ids: Identities, b: Bindings): Promise<Reply> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers ?? {})) if (k !== 'User-Agent') headers[k.toLowerCase()] = v;
  const ua = req.headers?.['User-Agent'];
  if (ua !== '(none)') headers['user-agent'] = ua ?? RECORDER_USER_AGENT;
  if (req.identity.startsWith('Authorization: "Bearer ')) headers.authorization = 'Bearer ';
  const body = req.body === undefined ? undefined : b.fillValue(req.body, api.resourceVersion);
  return call(api, req.method, b.fill(req.path, api.resourceVersion), {
    token: tokenFor(req.identity, ids),
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

/** The differences between a recorded answer and the stand-in's `reply`. */
export function compareReply(rec: RecordedResponse, reply: Reply, b: Bindings): string[] {
  const out: string[] = [];
  if (rec.status !== reply.status) out.push(`status: recorded ${rec.status}, stand-in ${reply.status}`);
  for (const name of ['content-type', 'retry-after', 'warning']) {
    const want = header(rec.headers, name);
    const got = header(reply.headers, name);
    if (want !== got && !(want !== undefined && got !== undefined && b.matches(want, got)))
      out.push(`header ${name}: recorded ${describe(want)}, stand-in ${describe(got)}`);
  }
  if (rec.events) {
    const lines = reply.text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { type: string; object: unknown });
    compareEvents(
      rec.events.map((e) => e.line),
      lines,
      b,
      out,
    );
    return out;
  }
  if (rec.bodyTrailingNewline !== undefined && rec.bodyTrailingNewline !== reply.text.endsWith('\n')) {
    out.push(`trailing newline: recorded ${rec.bodyTrailingNewline}, stand-in ${reply.text.endsWith('\n')}`);
  }
  if (rec.bodyText !== undefined) {
    if (!b.matches(rec.bodyText.trim(), reply.text.trim()))
      out.push(`body text: recorded ${describe(rec.bodyText)}, stand-in ${describe(reply.text)}`);
  } else compareValues(rec.body ?? undefined, reply.body, 'body', b, out);
  return out;
}

/**
 * Watch events: the non-BOOKMARK events in order, each compared whole; for
 * bookmarks only whether any came and the shape of the first (their number and
 * timing depend on the server's bookmark timer).
 */
function compareEvents(
  recorded: Array<{ type: string; object: unknown }>,
  actual: Array<{ type: string; object: unknown }>,
  b: Bindings,
  out: string[],
): void {
  const real = (evs: typeof recorded) => evs.filter((e) => e.type !== 'BOOKMARK');
  const rec = real(recorded);
  const got = real(actual);
  const seq = (evs: typeof recorded) => evs.map((e) => `${e.type} ${nameOf(e.object) ?? ''}`.trim()).join(', ');
  if (seq(rec) !== seq(got)) {
    out.push(`events: recorded [${seq(rec)}], stand-in [${seq(got)}]`);
  } else {
    rec.forEach((e, i) => compareValues(e.object, got[i]!.object, `events[${i}] ${e.type}`, b, out));
  }
  const recBookmark = recorded.find((e) => e.type === 'BOOKMARK');
  const gotBookmark = actual.find((e) => e.type === 'BOOKMARK');
  if (!recBookmark !== !gotBookmark)
    out.push(`bookmarks: recorded ${recBookmark ? 'some' : 'none'}, stand-in ${gotBookmark ? 'some' : 'none'}`);
  else if (recBookmark && gotBookmark) compareValues(recBookmark.object, gotBookmark.object, 'BOOKMARK', b, out);
}
