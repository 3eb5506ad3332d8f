// Why a label key or value is not valid, in the words of Kubernetes'
// apimachinery validation (k8s.io/apimachinery/pkg/util/validation), so that a
// profile configuration error reads like the one Volcano's Go controller
// reports for the same input. The yes/no checks live in src/kube/name-validation.ts;
// this module adds the messages.

import { DNS1123_SUBDOMAIN, QUALIFIED_NAME_PART, isLabelValue } from '../../../../kube/name-validation.ts';
const MAX_NAME_PART = 63;
const MAX_PREFIX = 253;
const MAX_LABEL_VALUE = 63;

const NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const SUBDOMAIN_RULE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** IsQualifiedName's complaints about a label key; empty when it is valid. */
export function qualifiedNameErrors(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2)
    return [`a valid label key ${NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  const errs: string[] = [];
  const name = parts.length === 2 ? parts[1]! : key;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else {
      if (prefix.length > MAX_PREFIX) errs.push(`prefix part must be no more than ${MAX_PREFIX} characters`);
      if (!DNS1123_SUBDOMAIN.test(prefix)) errs.push(`prefix part ${SUBDOMAIN_RULE}`);
    }
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > MAX_NAME_PART) errs.push(`name part must be no more than ${MAX_NAME_PART} characters`);
  if (name.length > 0 && !QUALIFIED_NAME_PART.test(name)) errs.push(`name part ${NAME_RULE}`);
  return errs;
}

/** IsValidLabelValue's complaints; empty when it is valid. */
export function labelValueErrors(value: string): string[] {
  if (isLabelValue(value)) return [];
  const errs: string[] = [];
  if (value.length > MAX_LABEL_VALUE) errs.push(`must be no more than ${MAX_LABEL_VALUE} characters`);
  if (!/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(value)) errs.push(VALUE_RULE);
  return errs;
}
