// Validation of the built-in kinds beyond object metadata, with the field
// paths and texts of k8s.io/kubernetes pkg/apis/core/validation
// (ValidateConfigMap, ValidateSecret, legacyValidateEvent, validateNodeTaints)
// and pkg/apis/coordination/validation (ValidateLeaseSpec).

import {
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  GoLiteral,
  type FieldError,
} from './status.ts';
import { dns1123SubdomainErrors, labelValueErrors, qualifiedNameErrors } from './meta-validation.ts';
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

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/**
 * validateNodeTaints: each taint's key a qualified name, its value a label
 * value, its effect one of three, and no two of one key and effect (the
 * second named as Go's %#v prints a core.Taint).
 */
export function nodeErrors(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const taints: unknown = obj.spec?.taints;
  if (!Array.isArray(taints)) return errs;
  const seen = new Set<string>();
  taints.forEach((t: { key?: unknown; value?: unknown; effect?: unknown; timeAdded?: unknown }, i) => {
    const at = `spec.taints[${i}]`;
    const key = typeof t?.key === 'string' ? t.key : '';
    const value = typeof t?.value === 'string' ? t.value : '';
    const effect = typeof t?.effect === 'string' ? t.effect : '';
    for (const m of qualifiedNameErrors(key)) errs.push(fieldInvalid(`${at}.key`, key, m));
    const bad = labelValueErrors(value);
    if (bad.length > 0) errs.push(fieldInvalid(`${at}.value`, value, bad.join(';')));
    if (effect === '') errs.push(fieldRequired(`${at}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(fieldNotSupported(`${at}.effect`, effect, TAINT_EFFECTS));
    if (seen.has(`${effect}\u0000${key}`)) {
      const time = typeof t?.timeAdded === 'string' ? '(*v1.Time)(…)' : '(*v1.Time)(nil)';
      const literal = `core.Taint{Key:${JSON.stringify(key)}, Value:${JSON.stringify(value)}, Effect:${JSON.stringify(effect)}, TimeAdded:${time}}`;
      errs.push(fieldDuplicate(at, new GoLiteral(literal), 'taints must be unique by key and effect pair'));
      return;
    }
    seen.add(`${effect}\u0000${key}`);
  });
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
