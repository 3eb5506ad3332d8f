// Why a label key or value is not valid, in the words of Kubernetes'
// apimachinery validation (k8s.io/apimachinery/pkg/util/validation), so that a
// profile configuration error reads like the one Volcano's Go controller
// reports for the same input. The yes/no checks live in src/kube/name-validation.ts;
// this module adds the messages.

import {
  DNS1123_SUBDOMAIN,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  isLabelValue,
  LABEL_VALUE_MAX_LENGTH,
  QUALIFIED_NAME_MAX_LENGTH,
  QUALIFIED_NAME_PART,
} from '../../../../kube/name-validation.ts';

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
      if (prefix.length > DNS1123_SUBDOMAIN_MAX_LENGTH)
        errs.push(`prefix part must be no more than ${DNS1123_SUBDOMAIN_MAX_LENGTH} characters`);
      if (!DNS1123_SUBDOMAIN.test(prefix)) errs.push(`prefix part ${SUBDOMAIN_RULE}`);
    }
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > QUALIFIED_NAME_MAX_LENGTH)
    errs.push(`name part must be no more than ${QUALIFIED_NAME_MAX_LENGTH} characters`);
  if (name.length > 0 && !QUALIFIED_NAME_PART.test(name)) errs.push(`name part ${NAME_RULE}`);
  return errs;
}

/** IsValidLabelValue's complaints; empty when it is valid. */
export function labelValueErrors(value: string): string[] {
  if (isLabelValue(value)) return [];
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX_LENGTH) errs.push(`must be no more than ${LABEL_VALUE_MAX_LENGTH} characters`);
  if (value !== '' && !QUALIFIED_NAME_PART.test(value)) errs.push(VALUE_RULE);
  return errs;
}
