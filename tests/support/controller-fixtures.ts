// Shared stand-ins for the HyperNode controller tests: a clock that runs itself,
// an Event recorder that remembers what it was told, and scriptable discoverers.

import { FakeClock } from '../kube/fake-clock.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { Channel } from '../../src/util/channel.ts';
import type {
  Discoverer,
  DiscovererFactory,
  DiscoveryEntry,
  EventRecorder,
  EventType,
  Snapshot,
} from '../../src/hypernode/model/contracts.ts';
import type { ConfigMap } from '../../src/hypernode/model/hypernode-types.ts';

/**
 * A FakeClock that also moves on by itself: each sleep is woken on the next
 * macrotask by advancing time by its duration, so code that sleeps briefly
 * (conflict retries, debounces) runs to completion without the test stepping
 * it. Only for code whose sleeps end; use FakeClock to step time by hand.
 */
export class AutoClock extends FakeClock {
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const slept = super.sleep(ms, signal);
    setImmediate(() => void this.advance(ms));
    return slept;
  }
}

export interface RecordedEvent {
  kind: string | undefined;
  name: string;
  type: EventType;
  reason: string;
  message: string;
}

export class RecordingEvents implements EventRecorder {
  readonly events: RecordedEvent[] = [];
  event(regarding: KubeObject, type: EventType, reason: string, message: string): void {
    this.events.push({ kind: regarding.kind, name: regarding.metadata.name, type, reason, message });
  }
  reasons(): string[] {
    return this.events.map((e) => `${e.reason} ${e.name}`);
  }
}

/** One started instance of a ScriptedSource: the test pushes snapshots through `emit`. */
export class ScriptedDiscoverer implements Discoverer {
  readonly output = new Channel<Snapshot>(1);
  acks = 0;
  stopped = false;
  constructor(
    readonly source: string,
    readonly entry: DiscoveryEntry,
  ) {}
  async start(): Promise<Channel<Snapshot>> {
    return this.output;
  }
  async stop(): Promise<void> {
    this.stopped = true;
    this.output.close();
  }
  resultSynced(): void {
    this.acks++;
  }
  emit(snapshot: Snapshot): Promise<boolean> {
    return this.output.send(snapshot);
  }
}

/**
 * A DiscovererFactory whose instances the test can reach. `failWith` makes
 * construction fail (like an unusable entry) until cleared; `failStartWith`
 * makes start() fail (like missing UFM credentials).
 */
export class ScriptedSource {
  readonly instances: ScriptedDiscoverer[] = [];
  attempts = 0;
  failWith: string | undefined;
  failStartWith: string | undefined;

  constructor(readonly source: string) {}

  readonly factory: DiscovererFactory = async (entry) => {
    this.attempts++;
    if (this.failWith) throw new Error(this.failWith);
    const d = new ScriptedDiscoverer(this.source, entry);
    if (this.failStartWith) {
      const reason = this.failStartWith;
      d.start = () => Promise.reject(new Error(reason));
      return d; // never started, so not one of `instances`
    }
    this.instances.push(d);
    return d;
  };

  /** The most recently created instance. */
  get current(): ScriptedDiscoverer {
    const d = this.instances.at(-1);
    if (!d) throw new Error(`source ${this.source} has no instance`);
    return d;
  }

  running(): ScriptedDiscoverer[] {
    return this.instances.filter((d) => !d.stopped);
  }
}

export const CM_NAMESPACE = 'volcano-system';
export const CM_NAME = 'volcano-controller-configmap';
export const CM_LOCATION = { namespace: CM_NAMESPACE, name: CM_NAME, key: 'volcano-controller.conf' } as const;

/** The discovery ConfigMap holding `yaml` under volcano-controller.conf. */
export function discoveryConfigMap(yaml: string, extra: Record<string, string> = {}): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: CM_NAMESPACE, name: CM_NAME, uid: 'cm-uid' },
    data: { 'volcano-controller.conf': yaml, ...extra },
  };
}

/** A networkTopologyDiscovery document from `{source, enabled?, config?}` items. */
export function discoveryYaml(
  entries: Array<{ source: string; enabled?: boolean; config?: Record<string, unknown> }>,
): string {
  const lines = ['networkTopologyDiscovery:'];
  for (const e of entries) {
    lines.push(`  - source: ${e.source}`, `    enabled: ${e.enabled ?? true}`);
    if (e.config) lines.push(`    config: ${JSON.stringify(e.config)}`);
  }
  return lines.join('\n') + '\n';
}
