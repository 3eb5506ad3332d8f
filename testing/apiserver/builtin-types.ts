// Decoding of the built-in (typed) kinds the stand-in serves: field types as
// Go's JSON decoder checks them (a wrong type is a 400 "cannot be handled as
// a Lease"), MicroTime's exact six fractional digits, base64 Secret data, and
// pruning of unknown fields. Mirrors what k8s.io/api types plus
// apimachinery's json serializer do before validation runs.

import { badRequest } from './status.ts';

type Field =
  | 'string'
  | 'int32'
  | 'int64'
  | 'bool'
  | 'time'
  | 'microtime'
  | 'any'
  | { map: 'string' | 'bytes' }
  | { array: Field }
  | Struct;

interface Struct {
  struct: string;
  fields: Record<string, Field>;
}

const objectReference: Struct = {
  struct: 'ObjectReference',
  fields: {
    kind: 'string',
    namespace: 'string',
    name: 'string',
    uid: 'string',
    apiVersion: 'string',
    resourceVersion: 'string',
    fieldPath: 'string',
  },
};

const typeMeta = { apiVersion: 'string', kind: 'string', metadata: 'any' } as const;

export const BUILTIN_TYPES: Record<string, Struct> = {
  Lease: {
    struct: 'Lease',
    fields: {
      ...typeMeta,
      spec: {
        struct: 'LeaseSpec',
        fields: {
          holderIdentity: 'string',
          leaseDurationSeconds: 'int32',
          acquireTime: 'microtime',
          renewTime: 'microtime',
          leaseTransitions: 'int32',
          strategy: 'string',
          preferredHolder: 'string',
        },
      },
    },
  },
  Event: {
    struct: 'Event',
    fields: {
      ...typeMeta,
      involvedObject: objectReference,
      reason: 'string',
      message: 'string',
      source: { struct: 'EventSource', fields: { component: 'string', host: 'string' } },
      firstTimestamp: 'time',
      lastTimestamp: 'time',
      count: 'int32',
      type: 'string',
      eventTime: 'microtime',
      series: { struct: 'EventSeries', fields: { count: 'int32', lastObservedTime: 'microtime' } },
      action: 'string',
      related: objectReference,
      reportingComponent: 'string',
      reportingInstance: 'string',
    },
  },
  ConfigMap: {
    struct: 'ConfigMap',
    fields: { ...typeMeta, immutable: 'bool', data: { map: 'string' }, binaryData: { map: 'bytes' } },
  },
  Secret: {
    struct: 'Secret',
    fields: { ...typeMeta, immutable: 'bool', data: { map: 'bytes' }, stringData: { map: 'string' }, type: 'string' },
  },
  Namespace: {
    struct: 'Namespace',
    fields: {
      ...typeMeta,
      spec: { struct: 'NamespaceSpec', fields: { finalizers: { array: 'string' } } },
      status: 'any',
    },
  },
  Node: { struct: 'Node', fields: { ...typeMeta, spec: 'any', status: 'any' } },
};

const TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const MICROTIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return `number ${v}`;
  return typeof v;
}

class DecodeError extends Error {}

/** Checks and prunes `value` against `field`; returns the value to keep (undefined = drop). */
function decode(value: unknown, field: Field, path: string, owner: string): unknown {
  if (value === null) return null;
  const mismatch = (goType: string): never => {
    throw new DecodeError(
      `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${owner}.${path} of type ${goType}`,
    );
  };
  if (field === 'any') return value;
  if (field === 'string') return typeof value === 'string' ? value : mismatch('string');
  if (field === 'bool') return typeof value === 'boolean' ? value : mismatch('bool');
  if (field === 'int32' || field === 'int64') {
    const limit = field === 'int32' ? 2 ** 31 : 2 ** 63;
    if (typeof value !== 'number' || !Number.isInteger(value) || value >= limit || value < -limit) mismatch(field);
    return value;
  }
  if (field === 'time' || field === 'microtime') {
    if (typeof value !== 'string') mismatch(field === 'time' ? 'v1.Time' : 'v1.MicroTime');
    const s = value as string;
    if (field === 'time' && !TIME_RE.test(s))
      throw new DecodeError(`parsing time "${s}" as "2006-01-02T15:04:05Z07:00": cannot parse "${s}" as "2006"`);
    if (field === 'microtime' && !MICROTIME_RE.test(s)) {
      const rest = s.replace(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/, '');
      // More than six digits: Go's layout takes six, then meets the rest where the zone belongs.
      const beyond = /^\.\d{6}(\d.*)$/.exec(rest);
      if (beyond)
        throw new DecodeError(
          `parsing time "${s}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "${beyond[1]}" as "Z07:00"`,
        );
      throw new DecodeError(
        `parsing time "${s}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "${rest}" as ".000000"`,
      );
    }
    return s;
  }
  if ('map' in field) {
    if (typeof value !== 'object' || Array.isArray(value))
      mismatch(`map[string]${field.map === 'bytes' ? '[]uint8' : 'string'}`);
    for (const v of Object.values(value as Record<string, unknown>)) {
      if (typeof v !== 'string')
        throw new DecodeError(
          `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${owner}.${path} of type ${field.map === 'bytes' ? '[]uint8' : 'string'}`,
        );
      if (field.map === 'bytes' && !BASE64_RE.test(v)) {
        throw new DecodeError(`illegal base64 data at input byte ${Math.max(0, v.search(/[^A-Za-z0-9+/=]/))}`);
      }
    }
    return value;
  }
  if ('array' in field) {
    if (!Array.isArray(value)) mismatch('[]string');
    return (value as unknown[]).map((v, i) => decode(v, field.array, `${path}[${i}]`, owner));
  }
  if (typeof value !== 'object' || Array.isArray(value)) mismatch(field.struct);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const sub = field.fields[k];
    if (!sub) continue; // unknown fields are dropped, as the default field validation does
    out[k] = decode(v, sub, path ? `${path}.${k}` : k, field.struct);
  }
  return out;
}

/**
 * Decodes a body for a built-in kind: type errors become 400 BadRequest
 * worded like `Lease in version "v1" cannot be handled as a Lease: …`.
 */
export function decodeBuiltin(kind: string, version: string, obj: Record<string, unknown>): Record<string, unknown> {
  const type = BUILTIN_TYPES[kind];
  if (!type) return obj;
  try {
    return decode(obj, type, '', type.struct) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof DecodeError)
      throw badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${err.message}`);
    throw err;
  }
}
