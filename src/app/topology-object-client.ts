// The Kubernetes client of the opt-in Kueue and KAI Topology objects: which
// versions serve `topologies`, what each version's published schema takes,
// and the verbs. Built on the REST client it is given, so the controller's
// writes share the HyperNode writes' rate limit and write fence, and `plan`
// reads through its own.

import { isForbidden, isNotFound } from '../kube/errors.ts';
import { resourceInformer } from '../kube/informer.ts';
import { resourceClient, type ResourceClient } from '../kube/resource.ts';
import type { RestClient } from '../kube/rest.ts';
import type { KubeObject } from '../kube/types.ts';
import type { TopologyObject, TopologyObjectClient } from '../hypernode/model/contracts.ts';

/** Where the API server lists its OpenAPI v3 documents, one per group-version. */
const OPENAPI_V3 = '/openapi/v3';

interface OpenApiDocument {
  components?: {
    schemas?: Record<
      string,
      { 'x-kubernetes-group-version-kind'?: Array<{ group?: string; version?: string; kind?: string }> }
    >;
  };
}

export function topologyObjects(rest: RestClient): TopologyObjectClient {
  const client = (group: string, version: string) =>
    resourceClient<TopologyObject & KubeObject>(rest, { group, version, resource: 'topologies', namespaced: false });
  /** A GET that answers undefined where the server has nothing at `path`, or (`unreadable`) may not show it. */
  const get = async <T>(
    path: string,
    signal: AbortSignal | undefined,
    unreadable = false,
    query?: Record<string, string>,
  ): Promise<T | undefined> => {
    try {
      return await rest.request<T>({ method: 'GET', path, ...(query ? { query } : {}), ...(signal ? { signal } : {}) });
    } catch (err) {
      if (isNotFound(err) || (unreadable && isForbidden(err))) return undefined;
      throw err;
    }
  };
  // A group-version's document by the URL the index names: the URL carries the document's hash, so one is fetched
  // again only when a CRD of that group-version changed (Kueue's, with its Workload schema, runs to megabytes).
  const documents = new Map<string, { url: string; doc: OpenApiDocument | undefined }>();
  return {
    async servedVersions(group, resource, signal) {
      const groupDoc = await get<{ versions?: Array<{ version: string }> }>(`/apis/${group}`, signal);
      const served: string[] = [];
      for (const { version } of groupDoc?.versions ?? []) {
        const list = await get<{ resources?: Array<{ name: string }> }>(`/apis/${group}/${version}`, signal);
        if (list?.resources?.some((r) => r.name === resource)) served.push(version);
      }
      return served;
    },
    async servedSchema(group, version, kind, signal) {
      const index = await get<{ paths?: Record<string, { serverRelativeURL?: string }> }>(OPENAPI_V3, signal, true);
      const key = `apis/${group}/${version}`;
      const url = index?.paths?.[key]?.serverRelativeURL;
      if (url === undefined) return undefined;
      let cached = documents.get(key);
      if (cached?.url !== url) {
        const at = new URL(url, 'http://server');
        const doc = await get<OpenApiDocument>(at.pathname, signal, true, Object.fromEntries(at.searchParams));
        documents.set(key, (cached = { url, doc }));
      }
      const schemas = Object.values(cached.doc?.components?.schemas ?? {});
      return schemas.find((s) =>
        s['x-kubernetes-group-version-kind']?.some(
          (gvk) => gvk.group === group && gvk.version === version && gvk.kind === kind,
        ),
      );
    },
    informer: (group, version, labelSelector, logger) =>
      resourceInformer(client(group, version) as ResourceClient<KubeObject>, {
        labelSelector,
        logger,
        missingHint: `is the ${group} Topology CRD still installed?`,
      }),
    list: async (group, version, labelSelector, signal) =>
      (await client(group, version).list({ labelSelector, ...(signal ? { signal } : {}) })).items,
    create: async (group, version, obj, signal) =>
      void (await client(group, version).create(obj as TopologyObject & KubeObject, signal ? { signal } : {})),
    updateLevels: async (group, version, name, resourceVersion, levels, signal) =>
      void (await client(group, version).patch(
        name,
        { metadata: { ...(resourceVersion ? { resourceVersion } : {}) }, spec: { levels } },
        signal ? { signal } : {},
      )),
    delete: (group, version, name, uid, signal) =>
      client(group, version).delete(name, {
        ...(uid ? { preconditions: { uid } } : {}),
        ...(signal ? { signal } : {}),
      }),
  };
}
