// Direct store access for tests: seed, change and read objects without HTTP
// or authorization. Writes still get server-managed metadata, validation,
// new resourceVersions and watch notifications, like a write through the
// API by an all-powerful client. Returned objects are copies.

import { keyOf, type Registry } from './registry.ts';
import { everyVersion, type ResourceType } from './resources.ts';
import type { Obj, Stored } from './store.ts';

const copy = (s: Stored): Obj => JSON.parse(JSON.stringify(s.obj));

/** Objects in a real cluster always carry managedFields; direct writes record this manager. */
const STORE_MANAGER = 'test-store';

export class TestStore {
  constructor(private readonly registry: Registry) {}

  private typeOfObject(obj: Obj): ResourceType {
    for (const t of everyVersion(this.registry.types.values()))
      if (t.kind === obj.kind && (!obj.apiVersion || t.apiVersion === obj.apiVersion)) return t;
    throw new Error(
      `the API server stand-in serves no kind ${obj.apiVersion ?? ''} ${obj.kind}; set apiVersion and kind on the object`,
    );
  }

  /** Creates an object (kind and apiVersion say which resource); status is kept as given. */
  create(obj: Obj): Obj {
    const rt = this.typeOfObject(obj);
    return copy(this.registry.create(rt, obj.metadata?.namespace, obj, { direct: true, manager: STORE_MANAGER }));
  }

  /** Replaces an object, spec and status alike; a resourceVersion, if given, must be current. */
  update(obj: Obj): Obj {
    const rt = this.typeOfObject(obj);
    return copy(
      this.registry.update(rt, obj.metadata?.namespace, obj.metadata?.name, obj, {
        direct: true,
        manager: STORE_MANAGER,
      }),
    );
  }

  /** Creates the object, or replaces it (ignoring its resourceVersion) when it exists. */
  apply(obj: Obj): Obj {
    const rt = this.typeOfObject(obj);
    const existing = this.registry.store.get(
      rt.key,
      keyOf(rt.namespaced ? obj.metadata?.namespace : undefined, obj.metadata?.name),
    );
    if (!existing) return this.create(obj);
    return this.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } });
  }

  delete(resource: string, name: string, namespace?: string): Obj {
    return copy(this.registry.delete(this.registry.type(resource), namespace, name));
  }

  get(resource: string, name: string, namespace?: string): Obj | undefined {
    const rt = this.registry.type(resource);
    const s = this.registry.store.get(resource, keyOf(rt.namespaced ? namespace : undefined, name));
    return s && copy(s);
  }

  /** Objects of a resource in key order, optionally only one namespace's. */
  list(resource: string, namespace?: string): Obj[] {
    this.registry.type(resource);
    return this.registry.store
      .list(resource)
      .filter((s) => namespace === undefined || s.obj.metadata.namespace === namespace)
      .map(copy);
  }

  /** The current global resourceVersion. */
  get resourceVersion(): string {
    return String(this.registry.store.rv);
  }
}
