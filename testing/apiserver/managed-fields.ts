// metadata.managedFields as the real server keeps them on every API write
// (apiserver/pkg/endpoints/handlers/fieldmanager): one entry per manager and
// subresource, named after the client's User-Agent prefix, stamped with the
// time of the last change. The field sets are coarse (top-level fields and
// label keys): enough that clients meet managedFields in every object and
// must not treat them as content, not a server-side-apply implementation.

import type { Obj } from './store.ts';

interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** The default field manager: the User-Agent up to its first '/', as the real server derives it. */
export function managerFromUserAgent(userAgent: string): string {
  return userAgent.split('/')[0] || 'unknown';
}

function fieldSet(obj: Obj, subresource: string | undefined): Record<string, unknown> {
  if (subresource === 'status') return { 'f:status': {} };
  const set: Record<string, unknown> = {};
  const labels = Object.keys(obj.metadata?.labels ?? {});
  if (labels.length) set['f:metadata'] = { 'f:labels': Object.fromEntries(labels.map((k) => [`f:${k}`, {}])) };
  for (const k of Object.keys(obj)) if (!['apiVersion', 'kind', 'metadata', 'status'].includes(k)) set[`f:${k}`] = {};
  return set;
}

/** Sets `obj.metadata.managedFields` from `previous` plus this write's entry. */
export function recordWrite(
  obj: Obj,
  previous: readonly ManagedFieldsEntry[] | undefined,
  manager: string,
  apiVersion: string,
  time: string,
  subresourceName?: string,
): void {
  // '' (a request to the resource itself) and absent are the same: one entry per manager there.
  const subresource = subresourceName || undefined;
  const entry: ManagedFieldsEntry = {
    manager,
    operation: 'Update',
    apiVersion,
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: fieldSet(obj, subresource),
  };
  if (subresource) entry.subresource = subresource;
  const others = (previous ?? []).filter((e) => e.manager !== manager || e.subresource !== subresource);
  obj.metadata.managedFields = [...others, entry];
}
