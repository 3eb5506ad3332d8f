// Validation of the built-in kinds beyond object metadata, with the field
// paths and texts of k8s.io/kubernetes pkg/apis/core/validation
// (ValidateConfigMap, ValidateSecret, legacyValidateEvent) and
// pkg/apis/coordination/validation (ValidateLeaseSpec).

import { fieldInvalid, fieldRequired, type FieldError } from './status.ts';
import { dns1123SubdomainErrors, qualifiedNameErrors } from './meta-validation.ts';
import type { Obj } from './store.ts';

const CONFIG_KEY_RE = /^[-._a-zA-Z0-9]+$/;

/** Keys of ConfigMap data/binaryData and Secret data. */
export function configKeyErrors(obj: Obj, maps: string[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const m of maps) {
    for (const key of Object.keys(obj[m] ?? {})) {
      if (!CONFIG_KEY_RE.test(key) || key === '.' || key === '..' || key.length > 253) {
        errs.push(
          fieldInvalid(
            `${m}[${key}]`,
            key,
            `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
          ),
        );
      }
      // ValidateConfigMap reports a binaryData key that data also has against data.
      if (m === 'binaryData' && obj.data && key in obj.data)
        errs.push(fieldInvalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    }
  }
  return errs;
}

/** ValidateLeaseSpec: durations positive, transitions not negative. */
export function leaseErrors(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj.spec ?? {};
  if (spec.leaseDurationSeconds != null && spec.leaseDurationSeconds <= 0) {
    errs.push(fieldInvalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions != null && spec.leaseTransitions < 0) {
    errs.push(fieldInvalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  return errs;
}

const REPORTING_INSTANCE_MAX = 128;
const ACTION_MAX = 128;
const REASON_MAX = 128;
const NOTE_MAX = 1024;

/**
 * legacyValidateEvent for core/v1: an old-style Event (no eventTime) lives in
 * its involved object's namespace, or in "default"/none for a cluster-scoped
 * object; a new-style one (eventTime set) needs the reporting fields.
 */
export function eventErrors(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const involvedNs: string = obj.involvedObject?.namespace ?? '';
  const ns: string = obj.metadata.namespace ?? '';
  const mismatch = fieldInvalid('involvedObject.namespace', involvedNs, 'does not match event.namespace');
  if (!obj.eventTime) {
    if (involvedNs === '' ? ns !== '' && ns !== 'default' : ns !== involvedNs) errs.push(mismatch);
  } else {
    if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') errs.push(mismatch);
    const controller: string = obj.reportingComponent ?? '';
    if (!controller) errs.push(fieldRequired('reportingController', ''));
    for (const m of qualifiedNameErrors(controller)) errs.push(fieldInvalid('reportingController', controller, m));
    const instance: string = obj.reportingInstance ?? '';
    if (!instance) errs.push(fieldRequired('reportingInstance', ''));
    if (instance.length > REPORTING_INSTANCE_MAX)
      errs.push(fieldInvalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_MAX} characters`));
    const action: string = obj.action ?? '';
    if (!action) errs.push(fieldRequired('action', ''));
    if (action.length > ACTION_MAX) errs.push(fieldInvalid('action', '', `can have at most ${ACTION_MAX} characters`));
    const reason: string = obj.reason ?? '';
    if (!reason) errs.push(fieldRequired('reason', ''));
    if (reason.length > REASON_MAX) errs.push(fieldInvalid('reason', '', `can have at most ${REASON_MAX} characters`));
    if ((obj.message ?? '').length > NOTE_MAX)
      errs.push(fieldInvalid('message', '', `can have at most ${NOTE_MAX} characters`));
  }
  for (const m of dns1123SubdomainErrors(ns)) errs.push(fieldInvalid('namespace', ns, m));
  return errs;
}
