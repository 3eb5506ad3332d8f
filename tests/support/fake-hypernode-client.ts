// An in-memory HyperNodeClient that behaves like the API server for the four
// calls the controller makes (create, update, updateStatus, delete):
// resourceVersion checks and delete preconditions (409 Conflict),
// AlreadyExists, NotFound, the status
// subresource (update ignores status, updateStatus changes only status). It
// records every call so tests assert the exact API actions, sample-controller
// style, and feeds a FakeInformer so the cache follows writes — immediately,
// or held back until the test releases it (a lagging watch).
//
// The FakeInformer stamps its own resourceVersions, so a write is given a
// provisional version until the cache receives it, and from then on the
// server's version is the one the cache shows. Every reader in the controller
// takes resourceVersions from the cache, so the two always agree where it
// matters.

import { ApiError } from '../../src/kube/errors.ts';
import type { HyperNodeClient } from '../../src/hypernode/model/contracts.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import type { Preconditions } from '../../src/kube/resource.ts';
import { FakeInformer } from './fake-informer.ts';

export type Verb = 'create' | 'update' | 'updateStatus' | 'delete';

export interface Action {
  verb: Verb;
  name: string;
  /** What was sent (a copy); absent for delete. */
  body?: HyperNode;
  /** The delete's preconditions. */
  preconditions?: Preconditions;
}

export class FakeHyperNodeClient implements HyperNodeClient {
  readonly actions: Action[] = [];
  private readonly stored = new Map<string, HyperNode>();
  private readonly held: Array<() => void> = [];
  private readonly injected: Array<{ verb: Verb; name?: string; err?: Error; before?: () => void }> = [];
  private holding = false;
  private provisional = 0;
  private uids = 0;

  constructor(readonly informer: FakeInformer<HyperNode> = new FakeInformer<HyperNode>()) {
    for (const hn of informer.list()) this.stored.set(hn.metadata.name, structuredClone(hn));
  }

  /** Puts an object on the server and in the cache without recording an action. */
  seed(hn: HyperNode): HyperNode {
    const obj = structuredClone(hn);
    obj.metadata.uid ??= `uid-${++this.uids}`;
    this.stored.set(obj.metadata.name, obj);
    return this.deliverNow(obj);
  }

  /** The server's copy (not the cache's). */
  server(name: string): HyperNode | undefined {
    const hn = this.stored.get(name);
    return hn && structuredClone(hn);
  }

  serverNames(): string[] {
    return [...this.stored.keys()].sort();
  }

  /** From now on, writes reach the cache only at releaseCache(). */
  holdCache(): void {
    this.holding = true;
  }

  /** Delivers every held write to the cache, in order, and stops holding. */
  releaseCache(): void {
    this.holding = false;
    for (const deliver of this.held.splice(0)) deliver();
  }

  /** The next call of `verb` (for `name`, when given) fails with `err` instead of running. */
  failNext(verb: Verb, err: Error, name?: string): void {
    this.injected.push({ verb, name, err });
  }

  /**
   * Runs `fn` when the next call of `verb` (for `name`, when given) arrives, before the server handles it: a race with
   * another writer.
   */
  beforeNext(verb: Verb, fn: () => void, name?: string): void {
    this.injected.push({ verb, name, before: fn });
  }

  /** Actions as `verb name` strings, the form most assertions read best in. */
  verbs(): string[] {
    return this.actions.map((a) => `${a.verb} ${a.name}`);
  }

  clearActions(): void {
    this.actions.length = 0;
  }

  async create(hn: HyperNode): Promise<HyperNode> {
    const name = hn.metadata.name;
    this.record('create', hn);
    if (this.stored.has(name))
      throw new ApiError(`hypernodes.topology.volcano.sh "${name}" already exists`, 409, 'AlreadyExists');
    const obj = structuredClone(hn);
    delete obj.status; // the status subresource is enabled: create ignores status
    obj.metadata.uid = `uid-${++this.uids}`;
    return this.write(obj);
  }

  async update(hn: HyperNode): Promise<HyperNode> {
    const current = this.checkVersion('update', hn);
    const obj = structuredClone(hn);
    obj.status = structuredClone(current.status); // PUT on the main resource ignores status
    obj.metadata.uid = current.metadata.uid;
    return this.write(obj);
  }

  async updateStatus(hn: HyperNode): Promise<HyperNode> {
    const current = this.checkVersion('updateStatus', hn);
    const obj = structuredClone(current);
    obj.status = structuredClone(hn.status);
    return this.write(obj);
  }

  async delete(name: string, preconditions: Preconditions = {}): Promise<void> {
    this.record('delete', undefined, name, preconditions);
    const current = this.stored.get(name);
    if (!current) throw notFound(name);
    // Worded as kube-apiserver's early precondition check (rest.BeforeDelete).
    const conflict = (detail: string) =>
      new ApiError(
        `Operation cannot be fulfilled on HyperNode.topology.volcano.sh "${name}": ${detail}`,
        409,
        'Conflict',
      );
    if (preconditions.uid !== undefined && preconditions.uid !== current.metadata.uid) {
      throw conflict(
        `the UID in the precondition (${preconditions.uid}) does not match the UID in record (${current.metadata.uid}). The object might have been deleted and then recreated`,
      );
    }
    if (
      preconditions.resourceVersion !== undefined &&
      preconditions.resourceVersion !== current.metadata.resourceVersion
    ) {
      throw conflict(
        `the ResourceVersion in the precondition (${preconditions.resourceVersion}) does not match the ResourceVersion in record (${current.metadata.resourceVersion}). The object might have been modified`,
      );
    }
    this.stored.delete(name);
    this.deliver(() => {
      if (this.informer.get(name)) this.informer.remove(name);
    });
  }

  private record(
    verb: Verb,
    body: HyperNode | undefined,
    name = body!.metadata.name,
    preconditions?: Preconditions,
  ): void {
    this.actions.push({
      verb,
      name,
      body: body && structuredClone(body),
      ...(preconditions ? { preconditions: { ...preconditions } } : {}),
    });
    const i = this.injected.findIndex((f) => f.verb === verb && (f.name === undefined || f.name === name));
    if (i < 0) return;
    const { err, before } = this.injected.splice(i, 1)[0]!;
    before?.();
    if (err) throw err;
  }

  private checkVersion(verb: Verb, hn: HyperNode): HyperNode {
    const name = hn.metadata.name;
    this.record(verb, hn);
    const current = this.stored.get(name);
    if (!current) throw notFound(name);
    if (!hn.metadata.resourceVersion)
      throw new ApiError(
        'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
        422,
        'Invalid',
      );
    if (hn.metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw new ApiError(
        `Operation cannot be fulfilled on hypernodes.topology.volcano.sh "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        409,
        'Conflict',
      );
    }
    return current;
  }

  private write(obj: HyperNode): HyperNode {
    obj.metadata.resourceVersion = `provisional-${++this.provisional}`;
    this.stored.set(obj.metadata.name, obj);
    this.deliver(() => this.deliverNow(obj));
    return structuredClone(obj);
  }

  /** Applies `obj` to the cache; the server's version becomes the cache's, unless the server moved on. */
  private deliverNow(obj: HyperNode): HyperNode {
    const cached = this.informer.apply(obj);
    const server = this.stored.get(obj.metadata.name);
    if (server === obj) server.metadata.resourceVersion = cached.metadata.resourceVersion;
    return cached;
  }

  private deliver(fn: () => void): void {
    if (this.holding) this.held.push(fn);
    else fn();
  }
}

function notFound(name: string): ApiError {
  return new ApiError(`hypernodes.topology.volcano.sh "${name}" not found`, 404, 'NotFound');
}
