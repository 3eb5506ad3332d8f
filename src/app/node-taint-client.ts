// The Kubernetes client of the fabric taint (health.taint): a Node read whole
// and cut down to its taints and the controller's record, and the taint
// list written as one JSON merge patch that carries the resourceVersion it
// was decided on, so a Node another writer changed meanwhile is answered
// 409 Conflict and read again (the way kubernetes' PatchNodeTaints makes
// its strategic merge patch; for an atomic list both replace it whole).
// Built on the REST client it is given: the controller's writes share the
// HyperNode writes' rate limit, write pace and write fence.

import { NODES } from '../kube/core-resources.ts';
import { isNotFound } from '../kube/errors.ts';
import { resourceClient } from '../kube/resource.ts';
import type { RestClient } from '../kube/rest.ts';
import type { KubeObject } from '../kube/types.ts';
import type { NodeTaintClient } from '../hypernode/model/contracts.ts';
import { nodeHealthOf, nodeTaintsOf } from '../hypernode/reconcile/health/node-health.ts';
import { taintMergePatch } from '../hypernode/reconcile/health/taint-patch.ts';

export function nodeTaints(rest: RestClient): NodeTaintClient {
  const nodes = resourceClient<KubeObject>(rest, NODES);
  return {
    async get(node, signal) {
      try {
        return nodeTaintsOf(nodeHealthOf(await nodes.get(node, signal ? { signal } : {})));
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    setTaints: async (node, change, signal) =>
      void (await nodes.patch(node, taintMergePatch(change), signal ? { signal } : {})),
  };
}
