// The Kubernetes client of the opt-in Kueue and KAI Topology objects
// (exports.kueueTopology / kaiTopology): discovery says at which versions of
// a group `topologies` are served (looked up per resource: a group may serve
// its kinds at different versions), and they are listed, watched, created
// and deleted. Built on the REST client it is given: the controller's
// HyperNode write client (its rate limit and write fence), or plan's reader.

import { isNotFound } from '../kube/errors.ts';
import { resourceInformer } from '../kube/informer.ts';
import { resourceClient, type ResourceClient } from '../kube/resource.ts';
import type { RestClient } from '../kube/rest.ts';
import type { KubeObject } from '../kube/types.ts';
import type { TopologyObject, TopologyObjectClient } from '../hypernode/model/contracts.ts';

export function topologyObjects(rest: RestClient): TopologyObjectClient {
  const client = (group: string, version: string) => resourceClient<TopologyObject & KubeObject>(rest, { group, version, resource: 'topologies', namespaced: false });
  return {
    async servedVersions(group, resource, signal) {
      const get = async <T>(path: string): Promise<T | undefined> => {
        try {
          return await rest.request<T>({ method: 'GET', path, ...(signal ? { signal } : {}) });
        } catch (err) {
          if (isNotFound(err)) return undefined; // the group, or this version of it, is not served
          throw err;
        }
      };
      const groupDoc = await get<{ versions?: Array<{ version: string }> }>(`/apis/${group}`);
      const served: string[] = [];
      for (const { version } of groupDoc?.versions ?? []) {
        const list = await get<{ resources?: Array<{ name: string }> }>(`/apis/${group}/${version}`);
        if (list?.resources?.some((r) => r.name === resource)) served.push(version);
      }
      return served;
    },
    informer: (group, version, labelSelector, logger) =>
      resourceInformer(client(group, version) as ResourceClient<KubeObject>, { labelSelector, logger, missingHint: `is the ${group} Topology CRD still installed?` }),
    list: async (group, version, labelSelector, signal) => (await client(group, version).list({ labelSelector, ...(signal ? { signal } : {}) })).items,
    create: async (group, version, obj, signal) => void (await client(group, version).create(obj as TopologyObject & KubeObject, signal ? { signal } : {})),
    delete: (group, version, name, uid, signal) => client(group, version).delete(name, { ...(uid ? { preconditions: { uid } } : {}), ...(signal ? { signal } : {}) }),
  };
}
