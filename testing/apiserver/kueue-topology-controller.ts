// Kueue's Topology controller as far as the HyperNode controller meets it
// (kubernetes-sigs/kueue pkg/controller/tas, topology_controller.go): every
// Topology gets the finalizer kueue.x-k8s.io/resource-in-use; a Topology
// being deleted keeps it while a ResourceFlavor names it in
// spec.topologyName, and loses it (so the deletion completes) once none
// does. Like the real controller it acts after the write that triggers it,
// not inside it, reacting to the store's events of both kinds. ClusterQueues,
// which hold ResourceFlavors in turn, are not modelled.

import type { ObjectStore, StoreEvent } from './store.ts';
import type { TestStore } from './test-store.ts';
import type { Obj } from './store.ts';

export const KUEUE_RESOURCE_IN_USE_FINALIZER = 'kueue.x-k8s.io/resource-in-use';
const TOPOLOGIES = 'topologies.kueue.x-k8s.io';
const FLAVORS = 'resourceflavors.kueue.x-k8s.io';

/** Starts the model over `objects`, writing through `store`; returns its stop. */
export function runKueueTopologyController(objects: ObjectStore, store: TestStore): () => void {
  const pending = new Set<string>();
  let stopped = false;
  const reconcile = (name: string) => {
    pending.delete(name);
    const topology = store.get(TOPOLOGIES, name);
    if (!topology || stopped) return;
    const finalizers: string[] = topology.metadata.finalizers ?? [];
    const has = finalizers.includes(KUEUE_RESOURCE_IN_USE_FINALIZER);
    if (topology.metadata.deletionTimestamp === undefined) {
      if (!has)
        store.update({
          ...topology,
          metadata: { ...topology.metadata, finalizers: [...finalizers, KUEUE_RESOURCE_IN_USE_FINALIZER] },
        });
      return;
    }
    const inUse = store.list(FLAVORS).some((rf: Obj) => rf.spec?.topologyName === name);
    if (has && !inUse)
      store.update({
        ...topology,
        metadata: { ...topology.metadata, finalizers: finalizers.filter((f) => f !== KUEUE_RESOURCE_IN_USE_FINALIZER) },
      });
  };
  const enqueue = (name: string | undefined) => {
    if (name === undefined || pending.has(name)) return;
    pending.add(name);
    setImmediate(() => reconcile(name));
  };
  const onTopology = (ev: StoreEvent) => {
    if (ev.type !== 'DELETED') enqueue(ev.object.obj.metadata.name);
  };
  // A flavor added, changed or deleted may release the Topology it named.
  const onFlavor = (ev: StoreEvent) => {
    enqueue(ev.object.obj.spec?.topologyName);
    enqueue(ev.previous?.obj.spec?.topologyName);
  };
  const stops = [objects.subscribe(TOPOLOGIES, onTopology), objects.subscribe(FLAVORS, onFlavor)];
  for (const t of store.list(TOPOLOGIES)) enqueue(t.metadata.name);
  return () => {
    stopped = true;
    for (const s of stops) s();
  };
}
