// Labels remembered from the last runs (docs/health.md, "Label memory"), the
// twin of the fabric sources' link memory: topology labels blink (the GPU DRA
// driver deletes nvidia.com/gpu.clique whenever its plugin stops, GPU Feature
// Discovery and NFD pods restart DaemonSet pod by DaemonSet pod), so a Node
// that still exists and lost a label key that places it keeps its place for
// health.labelGracePeriod: the last value is put back into its labels before
// the source groups them, and the Node is reported as held. Past the grace
// period it moves, once. A changed value is a move and applies at once; a
// deleted Node leaves at once; a grace period of 0 turns the memory off.
//
// The HyperNodes of ours are the memory across a restart: a Node seen for the
// first time, lacking a key that a HyperNode holding it carries, is held for
// the rest of the grace period that HyperNode's TopologyLabelsPresent
// condition records. Used by the label source and by every fabric source's
// NVLink tier (fabric/nvlink-domains.ts); what it remembers is kept by the
// reporter, so a source restarted by a configuration change keeps it.

import type { Clock } from '../../kube/clock.ts';
import type { Logger } from '../../log.ts';
import type { HeldNode, LabelHoldReporter, Snapshot } from '../model/contracts.ts';
import type { HyperNode, NodeMeta } from '../model/hypernode-types.ts';
import { OWNERSHIP_LABELS } from '../model/hypernode-labels.ts';
import { labelValue } from '../model/label-reads.ts';
import { membersOf } from '../model/member-selector.ts';
import { compareBytes } from '../../util/compare-bytes.ts';
import { runWhole, type SlicedWork } from '../../util/sliced-work.ts';

/** One key of one Node: its last value, and since when it is missing. */
interface Remembered {
  /** The value put back while missing; undefined once its grace period ended (the Node moved). */
  value: string | undefined;
  missingSince?: number;
}

/** Per scope (a fabric, '' for the label source): Node → key → what is remembered. */
type ScopeMemory = Map<string, Map<string, Remembered>>;

/** A level label a HyperNode of ours holding the Node carries: where a restart finds what the Node had. */
export interface HolderLabel {
  readonly key: string;
  /** The HyperNode's value of the key: the domain it stands for. */
  readonly domain: string;
  /** The HyperNode carrying it. */
  readonly holder: HyperNode;
}

export interface RecallInput {
  readonly scope: string;
  /** The Nodes the scope places, as the cache holds them. */
  readonly nodes: readonly NodeMeta[];
  /** Whether a label key places Nodes in this scope (a level key); only those are remembered. */
  readonly isLevelKey: (key: string) => boolean;
  /** The level keys, where they are a fixed few (the NVLink label): only these are read of each Node. */
  readonly levelKeys?: readonly string[];
  /** The HyperNodes of ours of this scope in the cache (read only for Nodes seen for the first time). */
  readonly cached: () => readonly HyperNode[];
  /**
   * A label value that gives `domain` for `key` in the HyperNode `holder`
   * (the inverse of the source's value → domain rule), undefined when none does.
   */
  readonly valueFor: (key: string, domain: string, holder: HyperNode) => string | undefined;
}

export interface Recalled {
  /** The Nodes with their held keys put back (the cache's own objects where nothing is held). */
  readonly nodes: readonly NodeMeta[];
  /** The Nodes held, by name. */
  readonly held: readonly HeldNode[];
}

export interface LabelMemoryDeps {
  readonly source: string;
  /** Absent (previews without a cluster): nothing is remembered or reported. */
  readonly reporter: LabelHoldReporter | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Called when the earliest grace period ends: the source runs again so the Node moves. */
  readonly onExpiry: () => void;
}

export class LabelMemory {
  private readonly scopes: Map<string, ScopeMemory>;
  /** Per scope: when its earliest hold ends. */
  private readonly expiries = new Map<string, number>();
  private timer: { readonly at: number; readonly stop: AbortController } | undefined;
  private stopped = false;

  constructor(private readonly deps: LabelMemoryDeps) {
    this.scopes = deps.reporter?.kept(`${deps.source}/labels`, () => new Map<string, ScopeMemory>()) ?? new Map();
  }

  /** The scope's Nodes with the keys they lost within the grace period put back, and those held. */
  recall(input: RecallInput): Recalled {
    return runWhole(this.recallSteps(input));
  }

  /** recall as sliced work (util/sliced-work.ts): a step per Node. */
  *recallSteps(input: RecallInput): SlicedWork<Recalled> {
    const { reporter, clock } = this.deps;
    const graceMs = reporter?.labelGraceMs() ?? 0;
    if (graceMs <= 0) {
      this.scopes.delete(input.scope);
      this.expire(input.scope, undefined);
      return { nodes: input.nodes, held: [] };
    }
    let memory = this.scopes.get(input.scope);
    if (!memory) this.scopes.set(input.scope, (memory = new Map()));
    const now = clock.now();
    const present = new Set<string>();
    let holders: HolderIndex | undefined;
    const nodes: NodeMeta[] = [];
    const held: HeldNode[] = [];
    for (const node of input.nodes) {
      yield;
      const name = node.metadata.name;
      present.add(name);
      const labels = node.metadata.labels;
      let keys = memory.get(name);
      const first = keys === undefined;
      if (!keys) memory.set(name, (keys = new Map()));
      for (const key of input.levelKeys ?? Object.keys(labels ?? {})) {
        const value = labelValue(labels, key);
        if (value === undefined || !input.isLevelKey(key)) continue;
        const r = keys.get(key);
        if (!r) keys.set(key, { value });
        else {
          r.value = value;
          delete r.missingSince;
        }
      }
      if (first) {
        holders ??= new HolderIndex(input.cached());
        for (const seed of holders.labelsOf(name)) {
          if (labelValue(labels, seed.key) !== undefined || !input.isLevelKey(seed.key) || keys.has(seed.key)) continue;
          const value = input.valueFor(seed.key, seed.domain, seed.holder);
          if (value === undefined) continue;
          // What a status writer recorded, never more than one grace period from now (a condition is anyone's to edit).
          const recorded = reporter?.recordedUntil(holders.lowest(name) ?? seed.holder, name);
          const until = Math.min(recorded ?? now + graceMs, now + graceMs);
          keys.set(seed.key, { value, missingSince: until - graceMs });
        }
      }
      const putBack: Record<string, string> = {};
      let since: number | undefined;
      for (const [key, r] of keys) {
        if (!input.isLevelKey(key)) {
          keys.delete(key);
          continue;
        }
        if (r.value === undefined || labelValue(labels, key) !== undefined) continue;
        r.missingSince ??= now;
        if (now - r.missingSince >= graceMs) {
          r.value = undefined;
          this.deps.logger.info('A label is still missing at the end of its grace period; the Node moves', {
            node: name,
            key,
            scope: input.scope,
          });
          continue;
        }
        putBack[key] = r.value;
        since = Math.min(since ?? r.missingSince, r.missingSince);
      }
      if (since === undefined) {
        nodes.push(node);
        continue;
      }
      nodes.push({ ...node, metadata: { ...node.metadata, labels: { ...labels, ...putBack } } });
      held.push({ node: name, keys: Object.keys(putBack).sort(compareBytes), since, until: since + graceMs });
    }
    // A Node gone from the cache (deleted) leaves at once, and is not held if it comes back.
    for (const name of memory.keys()) if (!present.has(name)) memory.delete(name);
    let earliest: number | undefined;
    for (const h of held) earliest = Math.min(earliest ?? h.until, h.until);
    this.expire(input.scope, earliest);
    return { nodes, held };
  }

  /** Reports the held Nodes of `scope` on the HyperNodes of `tree` holding each directly. */
  report(scope: string, held: readonly HeldNode[], tree: Snapshot): void {
    const reporter = this.deps.reporter;
    if (!reporter) return;
    const byNode = new Map(held.map((h) => [h.node, h]));
    const byHyperNode = new Map<string, HeldNode[]>();
    if (byNode.size > 0)
      for (const hn of tree)
        for (const m of hn.spec.members) {
          const h = m.type === 'Node' ? byNode.get(m.selector.exactMatch?.name ?? '') : undefined;
          if (!h) continue;
          const list = byHyperNode.get(hn.metadata.name);
          if (list) list.push(h);
          else byHyperNode.set(hn.metadata.name, [h]);
        }
    reporter.report(this.deps.source, scope, byHyperNode);
  }

  /** The scope places Nodes by no label (a fabric source without config.nvlink): nothing is held there. */
  off(scope: string): void {
    this.scopes.delete(scope);
    this.expire(scope, undefined);
    this.deps.reporter?.report(this.deps.source, scope, undefined);
  }

  /** Ends the timer; the memory itself stays with the reporter for the source's next instance. */
  stop(): void {
    this.stopped = true;
    this.timer?.stop.abort();
    this.timer = undefined;
  }

  /** Records when the scope's earliest hold ends and wakes the source then. */
  private expire(scope: string, at: number | undefined): void {
    if (at === undefined) this.expiries.delete(scope);
    else this.expiries.set(scope, at);
    let next: number | undefined;
    for (const at of this.expiries.values()) next = Math.min(next ?? at, at);
    if (this.stopped || next === this.timer?.at) return;
    this.timer?.stop.abort();
    this.timer = undefined;
    if (next === undefined) return;
    const stop = new AbortController();
    this.timer = { at: next, stop };
    const { clock, logger, onExpiry } = this.deps;
    clock.sleep(next - clock.now(), stop.signal).then(
      () => {
        if (this.timer?.stop !== stop) return;
        this.timer = undefined;
        logger.v(2).info('A label grace period ended, placing the Nodes again');
        onExpiry();
      },
      () => {},
    );
  }
}

/** Which cached HyperNodes of ours hold each Node, and the level labels above it. */
class HolderIndex {
  /** Node → the HyperNodes naming it as a member, byte-sorted. */
  private readonly direct = new Map<string, HyperNode[]>();
  private readonly parents = new Map<string, HyperNode>();

  constructor(hyperNodes: readonly HyperNode[]) {
    for (const hn of [...hyperNodes].sort((a, b) => compareBytes(a.metadata.name, b.metadata.name))) {
      for (const m of membersOf(hn)) {
        const name = m.selector?.exactMatch?.name;
        if (name === undefined) continue;
        if (m.type === 'Node') {
          const list = this.direct.get(name);
          if (list) list.push(hn);
          else this.direct.set(name, [hn]);
        } else if (m.type === 'HyperNode' && !this.parents.has(name)) this.parents.set(name, hn);
      }
    }
  }

  /** The HyperNode holding the Node directly (the one its condition is on), the first by name. */
  lowest(node: string): HyperNode | undefined {
    return this.direct.get(node)?.[0];
  }

  /** Every level label of the HyperNodes holding the Node and those above them, the lowest first per key. */
  labelsOf(node: string): HolderLabel[] {
    const out = new Map<string, HolderLabel>();
    for (const start of this.direct.get(node) ?? []) {
      const path = new Set<string>();
      for (let hn: HyperNode | undefined = start; hn && !path.has(hn.metadata.name); ) {
        path.add(hn.metadata.name);
        for (const [key, domain] of Object.entries(hn.metadata.labels ?? {}))
          if (!OWNERSHIP_LABELS.has(key) && !out.has(key)) out.set(key, { key, domain, holder: hn });
        hn = this.parents.get(hn.metadata.name);
      }
    }
    return [...out.values()];
  }
}
