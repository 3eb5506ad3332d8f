// Best-effort Kubernetes Events (client-go's tools/record broadcaster and
// EventCorrelator, reduced to what this controller needs): an Event is created
// for an involved object; the same event repeated within the aggregation window
// bumps `count` and `lastTimestamp` with a merge patch instead of creating a
// new object. Failures are logged, never thrown: events must not break callers.

import type { Logger } from '../log.ts';
import { truncateText } from '../util/truncate.ts';
import type { Clock } from './clock.ts';
import type { ResourceClient } from './resource.ts';
import type { KubeObject } from './types.ts';
import { errorMessage } from '../util/error-message.ts';

export const EVENT_RESOURCE = { group: '', version: 'v1', resource: 'events', namespaced: true } as const;
/** client-go's correlator forgets an event after 10 minutes without a repeat. */
const AGGREGATION_WINDOW_MS = 10 * 60_000;
const MAX_REMEMBERED = 4096;
/** The API server rejects Event messages longer than 1 KiB; longer ones are cut with their length noted. */
export const EVENT_MESSAGE_MAX_BYTES = 1024;

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  type: string;
  source: { component: string; host?: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  reportingComponent: string;
  reportingInstance: string;
}

export interface EventSink {
  /** Records an event; returns once written (or failed and logged). */
  record(involved: ObjectReference, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
}

export interface EventSinkOptions {
  client: ResourceClient<CoreEvent>;
  component: string;
  host: string;
  clock: Clock;
  logger: Logger;
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
  at: number;
}

export function referenceTo(obj: KubeObject): ObjectReference {
  const m = obj.metadata;
  return {
    ...(obj.apiVersion ? { apiVersion: obj.apiVersion } : {}),
    ...(obj.kind ? { kind: obj.kind } : {}),
    name: m.name,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    ...(m.uid ? { uid: m.uid } : {}),
    ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
  };
}

export function createEventSink(opts: EventSinkOptions): EventSink {
  const seen = new Map<string, Seen>();
  const log = opts.logger;
  /**
   * client-go names an Event after its UnixNano; our clock has ms, so two Events of one ms take the next free
   * nanosecond.
   */
  let lastNano = 0n;
  return {
    async record(involved, type, reason, fullMessage) {
      const message = truncateText(fullMessage, EVENT_MESSAGE_MAX_BYTES);
      const namespace = involved.namespace ?? 'default';
      const now = opts.clock.now();
      const stamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const key = JSON.stringify([involved.kind, namespace, involved.name, involved.uid, type, reason, message]);
      const prev = seen.get(key);
      try {
        if (prev && now - prev.at < AGGREGATION_WINDOW_MS) {
          prev.count++;
          prev.at = now;
          await opts.client.patch(prev.name, { count: prev.count, lastTimestamp: stamp }, { namespace });
          return;
        }
        const nowNano = BigInt(now) * 1_000_000n;
        lastNano = nowNano > lastNano ? nowNano : lastNano + 1n;
        const name = `${involved.name}.${lastNano.toString(16)}`;
        await opts.client.create(
          {
            apiVersion: 'v1',
            kind: 'Event',
            metadata: { name, namespace },
            involvedObject: involved,
            reason,
            message,
            type,
            source: { component: opts.component, host: opts.host },
            firstTimestamp: stamp,
            lastTimestamp: stamp,
            count: 1,
            reportingComponent: opts.component,
            reportingInstance: opts.host,
          },
          { namespace },
        );
        if (seen.size >= MAX_REMEMBERED) seen.delete(seen.keys().next().value!);
        seen.set(key, { name, namespace, count: 1, at: now });
      } catch (err) {
        if (prev) seen.delete(key); // the aggregate may be gone: next time create anew
        log.v(2).info('Failed to record event', { reason, involvedObject: involved.name, err: errorMessage(err) });
      }
    },
  };
}
