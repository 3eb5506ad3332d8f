// The soak test's invariants over the API server stand-in's request log, as
// pure functions of the records so that each can be shown to catch what it
// is meant to catch (tests/e2e/soak-invariants.test.ts).

import type { RequestRecord } from '../apiserver/index.ts';

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
/** What a leader writes besides its Lease: the topology and the Events about it. */
const LEADER_RESOURCES = new Set(['hypernodes', 'events']);

export function isLeaderWrite(r: RequestRecord): boolean {
  return WRITE_VERBS.has(r.verb) && LEADER_RESOURCES.has(r.resource);
}

/**
 * Every replica process has its own user, so writers are told apart by user.
 * Leadership only moves forward: once another process has written, a process
 * that wrote before it must never write again (it was deposed; a restarted
 * replica is a new process with a new user). Takes the records in arrival
 * order and keeps its state, so it can be fed the log as it grows.
 */
export class SingleWriterCheck {
  private current = '';
  private readonly deposed = new Set<string>();
  readonly violations: string[] = [];
  /** Changes of the writing process, in order. */
  readonly handovers: Array<{ time: string; from: string; to: string }> = [];

  feed(records: Iterable<RequestRecord>): void {
    for (const r of records) {
      if (!isLeaderWrite(r) || r.user === '') continue;
      if (r.user === this.current) continue;
      if (this.deposed.has(r.user)) {
        this.violations.push(
          `${r.time} ${r.user} wrote (${r.verb} ${r.resource}${r.name ? `/${r.name}` : ''}) after ${this.current} had taken over`,
        );
      }
      if (this.current) {
        this.deposed.add(this.current);
        this.handovers.push({ time: r.time, from: this.current, to: r.user });
      }
      this.current = r.user;
    }
  }
}

/** What one HyperNode stood for, from its labels: its source and the label group (key=value) of a label HyperNode. */
export interface HyperNodeIdentity {
  source: string;
  group?: string;
}

/**
 * A HyperNode delete is justified only by the inputs: a label HyperNode
 * whose group no Node carries any more (`retiredGroups`). The schedule never
 * takes Nodes out of UFM, so no ufm HyperNode may go, and a name the soak
 * never saw in the store cannot be justified.
 */
export function unjustifiedDeletes(
  records: Iterable<RequestRecord>,
  seen: ReadonlyMap<string, HyperNodeIdentity>,
  retiredGroups: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  for (const r of records) {
    if (r.resource !== 'hypernodes' || (r.verb !== 'delete' && r.verb !== 'deletecollection')) continue;
    const who = seen.get(r.name);
    const why = !who
      ? 'a HyperNode the soak never saw'
      : who.group && retiredGroups.has(who.group)
        ? undefined
        : `${who.source} HyperNode${who.group ? ` of ${who.group}` : ''}, still wanted by the inputs`;
    if (why) out.push(`${r.time} ${r.user} deleted ${r.name || '(collection)'}: ${why}`);
  }
  return out;
}

/** Lines of a replica's log that show a bug rather than a handled condition. */
const BUG_PATTERNS = [
  /^panic: /m,
  /FATAL ERROR/,
  /unhandled/i,
  /uncaught/i,
  /\b(TypeError|RangeError|ReferenceError)\b/,
];

export function bugLines(log: string): string[] {
  return log.split('\n').filter((line) => BUG_PATTERNS.some((p) => p.test(line)));
}
