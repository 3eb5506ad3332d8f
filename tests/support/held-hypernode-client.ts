// A HyperNodeClient in front of a FakeHyperNodeClient whose calls stay in
// flight until the test lets them through, one by one or all at once: what
// a write costs on a real server (a round trip) made visible, so a test
// sees how many writes run at once and in which order they start and end.

import type { HyperNodeClient } from '../../src/hypernode/model/contracts.ts';
import type { HyperNode } from '../../src/hypernode/model/hypernode-types.ts';
import type { Preconditions } from '../../src/kube/resource.ts';
import type { FakeHyperNodeClient, Verb } from './fake-hypernode-client.ts';

interface InFlight {
  readonly call: string;
  readonly go: () => void;
}

export class HeldHyperNodeClient implements HyperNodeClient {
  /** `start <verb> <name>` and `end <verb> <name>`, in order. */
  readonly log: string[] = [];
  private readonly inFlight: InFlight[] = [];
  private peak = 0;
  /** Calls go through at once while true. */
  passing = false;

  constructor(readonly inner: FakeHyperNodeClient) {}

  create(hn: HyperNode): Promise<HyperNode> {
    return this.held('create', hn.metadata.name, () => this.inner.create(hn));
  }
  update(hn: HyperNode): Promise<HyperNode> {
    return this.held('update', hn.metadata.name, () => this.inner.update(hn));
  }
  updateStatus(hn: HyperNode): Promise<HyperNode> {
    return this.held('updateStatus', hn.metadata.name, () => this.inner.updateStatus(hn));
  }
  delete(name: string, preconditions?: Preconditions): Promise<void> {
    return this.held('delete', name, () => this.inner.delete(name, preconditions));
  }

  /** `<verb> <name>` of the calls in flight, in the order they started. */
  calls(): string[] {
    return this.inFlight.map((f) => f.call);
  }

  /** The most calls in flight at once so far. */
  peakInFlight(): number {
    return this.peak;
  }

  /** Lets the call `<verb> <name>` through. */
  release(call: string): void {
    const i = this.inFlight.findIndex((f) => f.call === call);
    if (i < 0) throw new Error(`${call} is not in flight (in flight: ${this.calls().join(', ') || 'none'})`);
    this.inFlight.splice(i, 1)[0]!.go();
  }

  /** Lets every call through, now and from now on. */
  pass(): void {
    this.passing = true;
    for (const f of this.inFlight.splice(0)) f.go();
  }

  private held<T>(verb: Verb, name: string, send: () => Promise<T>): Promise<T> {
    const call = `${verb} ${name}`;
    this.log.push(`start ${call}`);
    return new Promise<void>((resolve) => {
      if (this.passing) return resolve();
      this.inFlight.push({ call, go: resolve });
      this.peak = Math.max(this.peak, this.inFlight.length);
    })
      .then(send)
      .finally(() => this.log.push(`end ${call}`));
  }
}
