// Object-metadata validation as the real API server applies it to every
// write: names (DNS-1123 subdomain or label), generateName, labels and
// annotations. Mirrors apimachinery pkg/api/validation/objectmeta.go and
// pkg/util/validation/validation.go, including their message texts.

import { fieldInvalid, fieldRequired, type FieldError } from './status.ts';

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;

const dns1123LabelRe = new RegExp(`^${DNS1123_LABEL}$`);
const dns1123SubdomainRe = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const qualifiedNameRe = new RegExp(`^${QUALIFIED_NAME}$`);
const labelValueRe = new RegExp(`^${LABEL_VALUE}$`);

/** Messages of IsDNS1123Subdomain (empty when valid). */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(
      `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN}')`,
    );
  }
  return errs;
}

/** Messages of IsDNS1123Label (empty when valid). */
export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!dns1123LabelRe.test(value)) {
    errs.push(
      `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${DNS1123_LABEL}')`,
    );
  }
  return errs;
}

/** Messages of IsQualifiedName: an optional DNS-subdomain prefix, '/', and a name part. */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const [prefix, n] = parts;
    name = n;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const m of dns1123SubdomainErrors(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (!qualifiedNameRe.test(name)) {
    errs.push(
      `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}')`,
    );
  }
  return errs;
}

/** Messages of IsValidLabelValue. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!labelValueRe.test(value)) {
    errs.push(
      `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${LABEL_VALUE}')`,
    );
  }
  return errs;
}

export function labelErrors(labels: Record<string, unknown> | undefined, field = 'metadata.labels'): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const m of qualifiedNameErrors(k)) errs.push(fieldInvalid(field, k, m));
    for (const m of labelValueErrors(String(v))) errs.push(fieldInvalid(field, v, m));
  }
  return errs;
}

export type NameRule = 'subdomain' | 'label';

/** ValidateObjectMeta: name (or generateName), namespace presence, labels and annotation keys. */
export function objectMetaErrors(meta: Record<string, unknown>, namespaced: boolean, nameRule: NameRule): FieldError[] {
  const errs: FieldError[] = [];
  const name = typeof meta.name === 'string' ? meta.name : '';
  const nameErrors = nameRule === 'label' ? dns1123LabelErrors : dns1123SubdomainErrors;
  if (typeof meta.generateName === 'string' && meta.generateName) {
    // Go validates the prefix with a trailing character stripped, as the suffix is appended later.
    for (const m of nameErrors(meta.generateName.replace(/-$/, '') || 'a'))
      errs.push(fieldInvalid('metadata.generateName', meta.generateName, m));
  }
  if (!name) errs.push(fieldRequired('metadata.name', 'name or generateName is required'));
  else for (const m of nameErrors(name)) errs.push(fieldInvalid('metadata.name', name, m));
  const ns = typeof meta.namespace === 'string' ? meta.namespace : '';
  if (namespaced && !ns) errs.push(fieldRequired('metadata.namespace', ''));
  errs.push(...labelErrors(meta.labels as Record<string, unknown> | undefined));
  for (const k of Object.keys((meta.annotations as Record<string, unknown>) ?? {})) {
    for (const m of qualifiedNameErrors(k.toLowerCase())) errs.push(fieldInvalid('metadata.annotations', k, m));
  }
  return errs;
}
