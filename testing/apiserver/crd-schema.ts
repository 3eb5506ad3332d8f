// What a real API server does with a CustomResourceDefinition's structural
// schema on every write: drop nulls of non-nullable fields, prune unknown
// fields, then validate (type, required, enum, minimum, minLength, maxLength,
// pattern, minItems, format int64) and run the x-kubernetes-validations
// rules. Messages follow apiextensions-apiserver's conversion of kube-openapi
// results into field errors. The CEL rules are implemented in code, keyed by
// their exact text: a rule this file does not know fails loudly so a changed
// CRD cannot be silently half-enforced.

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import {
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTypeInvalid,
  type FieldError,
} from './status.ts';

export interface Schema {
  type?: string;
  format?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-validations'?: { rule: string; message?: string }[];
}

export interface CrdVersion {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  subresources: string[];
  schema: Schema;
  /** The version objects are stored at (the others are converted to and from it). */
  storage: boolean;
  /** The Warning a request at this version gets when the CRD marks it deprecated. */
  deprecationWarning?: string;
}

/** Reads a CRD manifest and returns its served versions, the storage version first. */
export function loadCrd(file: string): CrdVersion[] {
  const crd = parse(readFileSync(file, 'utf8'));
  type Version = {
    name: string;
    served?: boolean;
    storage: boolean;
    deprecated?: boolean;
    deprecationWarning?: string;
    subresources?: object;
    schema: { openAPIV3Schema: Schema };
  };
  const versions = (crd.spec.versions as Version[]).filter((v) => v.served !== false);
  if (!versions.some((v) => v.storage)) throw new Error(`${file}: no storage version`);
  return versions
    .sort((a, b) => Number(b.storage) - Number(a.storage))
    .map((v) => ({
      group: crd.spec.group,
      version: v.name,
      kind: crd.spec.names.kind,
      listKind: crd.spec.names.listKind,
      plural: crd.spec.names.plural,
      singular: crd.spec.names.singular,
      shortNames: crd.spec.names.shortNames ?? [],
      namespaced: crd.spec.scope === 'Namespaced',
      subresources: Object.keys(v.subresources ?? {}),
      schema: v.schema.openAPIV3Schema,
      storage: v.storage,
      // apiextensions-apiserver's default text when the CRD gives none.
      ...(v.deprecated
        ? {
            deprecationWarning:
              v.deprecationWarning ?? `${crd.spec.group}/${v.name} ${crd.spec.names.kind} is deprecated`,
          }
        : {}),
    }));
}

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** ObjectMeta fields kept when metadata is pruned (everything else is dropped, as for CRs). */
const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Removes nulls on non-nullable fields and fields the schema does not know. Returns the cleaned value. */
export function prune(value: Json, schema: Schema | undefined, root = true): Json {
  if (!schema || schema['x-kubernetes-preserve-unknown-fields']) return value;
  if (Array.isArray(value)) return schema.items ? value.map((v) => prune(v, schema.items, false)) : value;
  if (!isObject(value)) return value;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value)) {
    if (root && (k === 'apiVersion' || k === 'kind')) {
      out[k] = v;
      continue;
    }
    if (root && k === 'metadata') {
      if (isObject(v)) out[k] = Object.fromEntries(Object.entries(v).filter(([mk]) => OBJECT_META_FIELDS.has(mk)));
      else out[k] = v;
      continue;
    }
    const sub =
      schema.properties?.[k] ?? (isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
    if (!sub && schema.additionalProperties !== true) continue;
    if (v === null && !sub?.nullable) continue;
    out[k] = prune(v, sub, false);
  }
  return out;
}

function typeName(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(v: Json, type: string): boolean {
  const t = typeName(v);
  if (type === 'number') return t === 'number' || t === 'integer';
  return t === type;
}

const INT64_MAX = 2 ** 63;

/** Validates a pruned object against the schema; field paths like `spec.members[0].type`. */
export function validateSchema(value: Json, schema: Schema, path: string, errs: FieldError[]): void {
  const wrongType = schema.type !== undefined && !typeMatches(value, schema.type);
  if (wrongType)
    errs.push(
      fieldTypeInvalid(path, typeName(value), `${path} in body must be of type ${schema.type}: "${typeName(value)}"`),
    );
  // The enum is checked even on a wrong type, as kube-openapi does; nothing else is.
  if (schema.enum && !schema.enum.some((e) => e === value)) {
    errs.push(fieldNotSupported(path, value, schema.enum.map(String)));
  }
  if (wrongType) return;
  if (typeof value === 'number') {
    if (schema.format === 'int64' && (value >= INT64_MAX || value < -INT64_MAX)) {
      errs.push(fieldInvalid(path, value, `${path} in body must be of type int64: "${value}"`));
    }
    if (schema.minimum !== undefined && value < schema.minimum) {
      errs.push(fieldInvalid(path, value, `${path} in body should be greater than or equal to ${schema.minimum}`));
    }
    if (schema.maximum !== undefined && value > schema.maximum) {
      errs.push(fieldInvalid(path, value, `${path} in body should be less than or equal to ${schema.maximum}`));
    }
  }
  if (typeof value === 'string') {
    // Only the first failing length or pattern check is reported, as kube-openapi's string validator does.
    const length = [...value].length;
    if (schema.maxLength !== undefined && length > schema.maxLength) errs.push(fieldTooLong(path, schema.maxLength));
    else if (schema.minLength !== undefined && length < schema.minLength) {
      errs.push(fieldInvalid(path, value, `${path} in body should be at least ${schema.minLength} chars long`));
    } else if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
      errs.push(fieldInvalid(path, value, `${path} in body should match '${schema.pattern}'`));
    }
    if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) {
      errs.push(fieldInvalid(path, value, `${path} in body must be of type date-time: "${value}"`));
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      errs.push(fieldInvalid(path, value.length, `${path} in body should have at least ${schema.minItems} items`));
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      errs.push(fieldInvalid(path, value.length, `${path} in body should have at most ${schema.maxItems} items`));
    }
    if (schema.items) value.forEach((item, i) => validateSchema(item, schema.items!, `${path}[${i}]`, errs));
  }
  if (isObject(value)) {
    for (const r of schema.required ?? []) if (!(r in value)) errs.push(fieldRequired(path ? `${path}.${r}` : r, ''));
    // Schema order (alphabetical in generated CRDs) keeps the error list stable whatever the body's key order.
    for (const [k, sub] of Object.entries(schema.properties ?? {})) {
      if (k in value && !(path === '' && k === 'metadata'))
        validateSchema(value[k], sub, path ? `${path}.${k}` : k, errs);
    }
    if (isObject(schema.additionalProperties)) {
      for (const [k, v] of Object.entries(value)) {
        if (!schema.properties?.[k]) validateSchema(v, schema.additionalProperties, `${path}[${k}]`, errs);
      }
    }
  }
}

/** A rule's check: `oldSelf` is the stored value at the same path, for transition rules on an update. */
type Rule = (self: any, oldSelf: Json) => boolean;

/** A value with its object keys sorted, so CEL's order-free equality can be a JSON comparison. */
const sortedKeys = (v: Json): Json =>
  Array.isArray(v)
    ? v.map(sortedKeys)
    : isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortedKeys(v[k])]),
        )
      : v;

const levelLabels = (self: Array<{ nodeLabel?: string }>) => self.map((l) => l.nodeLabel);

/** The CEL rules this stand-in understands, keyed by their exact text. */
const KNOWN_RULES: Record<string, Rule> = {
  'has(self.exactMatch) || has(self.regexMatch) || has(self.labelMatch)': (self) =>
    'exactMatch' in self || 'regexMatch' in self || 'labelMatch' in self,
  '(has(self.exactMatch) ? 1 : 0) + (has(self.regexMatch) ? 1 : 0) + (has(self.labelMatch) ? 1 : 0) <= 1': (self) =>
    ['exactMatch', 'regexMatch', 'labelMatch'].filter((k) => k in self).length <= 1,
  // Topology levels (Kueue, KAI), as published: fixed once created, no level twice, the hostname level only last.
  'self == oldSelf': (self, oldSelf) => JSON.stringify(self) === JSON.stringify(oldSelf),
  'size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0': (self) =>
    new Set(self.map((l: unknown) => JSON.stringify(l))).size === self.length,
  "size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname'":
    (self) =>
      !levelLabels(self).includes('kubernetes.io/hostname') || levelLabels(self).at(-1) === 'kubernetes.io/hostname',
  // KAI 0.17 levels with an alias: only the nodeLabel sequence is fixed (aliases may change), no nodeLabel twice.
  'self.map(l, l.nodeLabel) == oldSelf.map(l, l.nodeLabel)': (self, oldSelf) =>
    Array.isArray(oldSelf) && JSON.stringify(levelLabels(self)) === JSON.stringify(levelLabels(oldSelf)),
  'size(self.filter(i, size(self.filter(j, j.nodeLabel == i.nodeLabel)) > 1)) == 0': (self) =>
    new Set(levelLabels(self)).size === self.length,
  // Kueue's ResourceFlavor spec. Without nodeLabels CEL fails on the missing key; the stand-in reports the rule's
  // message instead.
  '!has(self.topologyName) || self.nodeLabels.size() >= 1': (self) =>
    !('topologyName' in self) || Object.keys(self.nodeLabels ?? {}).length >= 1,
  '!has(oldSelf.topologyName) || self == oldSelf': (self, oldSelf) =>
    !(isObject(oldSelf) && 'topologyName' in oldSelf) ||
    JSON.stringify(sortedKeys(self)) === JSON.stringify(sortedKeys(oldSelf)),
};

/** A transition rule compares with the stored object: not run on create, nor where the old value is absent. */
const isTransitionRule = (rule: string) => rule.includes('oldSelf');

/** Fails at load time if the schema carries a rule that is not implemented above. */
export function checkRulesKnown(schema: Schema, path = ''): void {
  for (const v of schema['x-kubernetes-validations'] ?? []) {
    if (!KNOWN_RULES[v.rule])
      throw new Error(`CRD rule at ${path || '<root>'} is not implemented by the API server stand-in: ${v.rule}`);
  }
  for (const [k, sub] of Object.entries(schema.properties ?? {})) checkRulesKnown(sub, path ? `${path}.${k}` : k);
  if (schema.items) checkRulesKnown(schema.items, `${path}[]`);
}

/**
 * Schema errors that stop the CEL rules from running (apiextensions-apiserver
 * v1.24): a missing required field, a wrong type or a too long value. The
 * rules are then reported as not checked, in one cause with field `<nil>`.
 */
const BLOCKS_RULES = new Set<FieldError['type']>(['Required', 'TypeInvalid', 'TooLong']);

export const RULES_NOT_CHECKED: FieldError = fieldInvalid(
  '<nil>',
  'null',
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
);

/**
 * The rule errors for `value`, or the not-checked cause when `prior` holds a
 * blocking schema error; `old` is the stored object on an update, for the
 * transition rules.
 */
export function ruleErrors(value: Json, schema: Schema, prior: readonly FieldError[], old?: Json): FieldError[] {
  if (prior.some((e) => BLOCKS_RULES.has(e.type))) return [RULES_NOT_CHECKED];
  const errs: FieldError[] = [];
  validateRules(value, schema, '', errs, old);
  return errs;
}

/**
 * Runs x-kubernetes-validations on every object and list that has them
 * (skipped where the type is wrong); `old` is walked alongside for the
 * transition rules.
 */
function validateRules(value: Json, schema: Schema, path: string, errs: FieldError[], old?: Json): void {
  if (schema.type && !typeMatches(value, schema.type)) return;
  if (isObject(value) || Array.isArray(value)) {
    for (const v of schema['x-kubernetes-validations'] ?? []) {
      if (isTransitionRule(v.rule) && old === undefined) continue;
      if (!KNOWN_RULES[v.rule]!(value, old))
        errs.push(fieldInvalid(path, isObject(value) ? 'object' : 'array', v.message ?? `failed rule: ${v.rule}`));
    }
  }
  if (isObject(value)) {
    const before = isObject(old) ? old : undefined;
    for (const [k, sub] of Object.entries(schema.properties ?? {})) {
      if (k in value && !(path === '' && k === 'metadata'))
        validateRules(value[k], sub, path ? `${path}.${k}` : k, errs, before?.[k]);
    }
  }
  // List items have no stable identity to pair old and new by: their transition rules are not run.
  if (Array.isArray(value) && schema.items)
    value.forEach((item, i) => validateRules(item, schema.items!, `${path}[${i}]`, errs));
}
