// The OpenAPI v3 documents a real API server publishes, as far as a client
// reads a served schema from them: /openapi/v3 lists every group-version
// with the URL of its document (the URL carries a hash of the document, so a
// client fetches a document again only when it changed), and
// /openapi/v3/apis/<group>/<version> holds, under components.schemas, each
// kind's schema tagged with x-kubernetes-group-version-kind. A CRD's schema
// is published as written in the CRD at that version (apiextensions-apiserver
// builds the v3 document without stripping value validations such as
// maxItems); built-in kinds, which no test reads, are published as bare
// objects. Mirrors kube-openapi handler3 and apiextensions-apiserver's
// controller/openapiv3.

import { createHash } from 'node:crypto';
import type { Schema } from './crd-schema.ts';
import type { ResourceType } from './resources.ts';

const ROOT = '/openapi/v3';
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** `kueue.x-k8s.io` → `io.x-k8s.kueue`: how kube-openapi names a group's definitions. */
const reversedGroup = (group: string) => group.split('.').reverse().join('.');

/** The path of a group-version under /openapi/v3 (`api/v1`, `apis/kai.scheduler/v1alpha1`). */
const pathOf = (t: ResourceType) => (t.group === '' ? `api/${t.version}` : `apis/${t.group}/${t.version}`);

function kindSchema(t: ResourceType): Schema & Record<string, unknown> {
  const gvk = [{ group: t.group, kind: t.kind, version: t.version }];
  if (!t.schema) return { type: 'object', 'x-kubernetes-group-version-kind': gvk };
  return {
    ...t.schema,
    properties: {
      ...t.schema.properties,
      metadata: { allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }] } as Schema,
    },
    'x-kubernetes-group-version-kind': gvk,
  };
}

function groupVersionDocument(types: readonly ResourceType[]): unknown {
  const schemas: Record<string, unknown> = { [OBJECT_META]: { type: 'object' } };
  for (const t of types) {
    const prefix = t.group === '' ? `io.k8s.api.core.${t.version}` : `${reversedGroup(t.group)}.${t.version}`;
    schemas[`${prefix}.${t.kind}`] = kindSchema(t);
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.33.0' }, paths: {}, components: { schemas } };
}

/** The document at `path`, or undefined when `path` is no OpenAPI v3 path this server serves. */
export function openApiDocument(path: string, types: readonly ResourceType[]): unknown {
  if (path !== ROOT && !path.startsWith(`${ROOT}/`)) return undefined;
  const byPath = new Map<string, ResourceType[]>();
  for (const t of types) byPath.set(pathOf(t), [...(byPath.get(pathOf(t)) ?? []), t]);
  if (path === ROOT) {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const [p, ts] of [...byPath].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const hash = createHash('sha512')
        .update(JSON.stringify(groupVersionDocument(ts)))
        .digest('hex')
        .toUpperCase();
      paths[p] = { serverRelativeURL: `${ROOT}/${p}?hash=${hash}` };
    }
    return { paths };
  }
  const ts = byPath.get(path.slice(ROOT.length + 1));
  return ts ? groupVersionDocument(ts) : undefined;
}
