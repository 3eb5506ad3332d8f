// The Kubernetes client of the opt-in Kueue and KAI Topology objects
// (exports.kueueTopology / kaiTopology): discovery says which versions of a
// group are served, and `topologies` of that group are listed, created and
// deleted. Built on the REST client it is given: the controller's HyperNode
// write client (its rate limit and write fence), or plan's reader.

import { isNotFound } from '../kube/errors.ts';
import { resourceClient } from '../kube/resource.ts';
import type { RestClient } from '../kube/rest.ts';
import type { KubeObject } from '../kube/types.ts';
import type { TopologyObject, TopologyObjectClient } from '../hypernode/model/contracts.ts';

export function topologyObjects(rest: RestClient): TopologyObjectClient {
  const client = (group: string, version: string) => resourceClient<TopologyObject & KubeObject>(rest, { group, version, resource: 'topologies', namespaced: false });
  return {
    async servedVersions(group, signal) {
      try {
        const doc = await rest.request<{ versions?: Array<{ version: string }> }>({ method: 'GET', path: `/apis/${group}`, ...(signal ? { signal } : {}) });
        return (doc.versions ?? []).map((v) => v.version);
      } catch (err) {
        if (isNotFound(err)) return [];
        throw err;
      }
    },
    list: async (group, version, labelSelector, signal) => (await client(group, version).list({ labelSelector, ...(signal ? { signal } : {}) })).items,
    create: async (group, version, obj, signal) => void (await client(group, version).create(obj as TopologyObject & KubeObject, signal ? { signal } : {})),
    delete: (group, version, name, uid, signal) => client(group, version).delete(name, { ...(uid ? { preconditions: { uid } } : {}), ...(signal ? { signal } : {}) }),
  };
}
