// The EventRecorder handed to the controller. Kubernetes requires an Event to
// live in its involved object's namespace, and cluster-scoped HyperNodes would
// put Events in `default`, which our RBAC does not grant (deploy/kubernetes/rbac.yaml, as Volcano's chart). So
// every controller Event is attached to the discovery ConfigMap, in the
// ConfigMap's namespace, and names the object it is about in the message:
// `HyperNode hypernode-x: failed to create: ...`.

import { referenceTo, type EventSink } from '../kube/events.ts';
import type { Informer, KubeObject } from '../kube/types.ts';
import type { EventRecorder } from '../hypernode/model/contracts.ts';

export function configMapEventRecorder(
  sink: EventSink,
  configMaps: Informer<KubeObject>,
  where: { namespace: string; name: string },
): EventRecorder {
  return {
    event(regarding, type, reason, message) {
      const cached = configMaps.get(`${where.namespace}/${where.name}`);
      const involved = referenceTo({ ...(cached ?? { metadata: where }), apiVersion: 'v1', kind: 'ConfigMap' });
      const isConfigMap = regarding.kind === 'ConfigMap' && regarding.metadata.name === where.name;
      const subject = [regarding.kind, regarding.metadata.name].filter(Boolean).join(' ');
      void sink.record(involved, type, reason, isConfigMap ? message : `${subject}: ${message}`);
    },
  };
}
