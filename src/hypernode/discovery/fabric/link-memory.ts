// Links remembered from the last good poll (docs/health.md, FabricHealthy):
// the topology is the cabling, so a link that vanished from a poll (a host
// rebooting, a NIC reset, a port down) keeps its host or switch where it was
// for the grace period (health.linkGracePeriod), and the source reports it as
// a problem of the HyperNode holding the switch. Past the grace period the
// link is forgotten and the topology follows, through the mass-delete guard
// like any other change. Used by every fabric source around the fabric layer,
// or around a grouping of its own (remembered()). With each report go the
// links of every Node the fabric cables, so that a Node whose links are all
// missing can be tainted (health.taint). Sliced work (sliced-work.ts), a
// step a link: a poll of a 9,216-tray fabric recalls 106,496 links on the
// thread that renews the Lease.

import type { DiscovererOptions, FabricHealthProblem, HostLinks } from '../../model/contracts.ts';
import type { FabricGraph, FabricHost, FabricLink, FabricLinkEnd, FabricSwitch } from './fabric-graph.ts';
import { fabricHyperNodesSteps, type FabricHyperNodes, type FabricInput } from './fabric-hypernodes.ts';
import type { HostMapper } from './host-mapping.ts';
import { oneStep, runWhole, type SlicedWork } from '../../../util/sliced-work.ts';

interface Remembered {
  link: FabricLink;
  /** When it was first missing from a poll; undefined while it is present. */
  missingSince?: number;
  /** The last recall that saw it. */
  seen: number;
}

/** One fabric's remembered links, switches and hosts. */
class FabricLinks {
  private readonly links = new Map<string, Remembered>();
  private readonly switches = new Map<string, FabricSwitch>();
  private readonly hosts = new Map<string, FabricHost>();

  /** Recalls so far: what `seen` counts (a fabric of 10^5 links is read every poll; each key is made once). */
  private round = 0;
  /** How many links the last recall put back. */
  missingAtLastRecall = 0;

  /** The graph with the links missing for at most `graceMs` put back, those links, and since when each is missing. */
  *recall(
    graph: FabricGraph,
    now: number,
    graceMs: number,
  ): SlicedWork<{ graph: FabricGraph; missing: FabricLink[]; since: number[] }> {
    const round = ++this.round;
    for (const link of graph.links) {
      yield;
      const key = linkKey(link);
      const r = this.links.get(key);
      if (r) {
        r.link = link;
        r.missingSince = undefined;
        r.seen = round;
      } else this.links.set(key, { link, seen: round });
    }
    for (const s of graph.switches) this.switches.set(s.id, s);
    for (const h of graph.hosts) this.hosts.set(h.name, h);
    const missing: FabricLink[] = [];
    const since: number[] = [];
    for (const [key, r] of this.links) {
      yield;
      if (r.seen === round) continue;
      r.missingSince ??= now;
      if (now - r.missingSince >= graceMs) this.links.delete(key);
      else {
        missing.push(r.link);
        since.push(r.missingSince);
      }
    }
    yield* this.forgetUnlinked();
    this.missingAtLastRecall = missing.length;
    if (missing.length === 0) return { graph, missing, since };
    const switches = new Map(graph.switches.map((s) => [s.id, s]));
    const hosts = new Map(graph.hosts.map((h) => [h.name, h]));
    for (const end of missing.flatMap((l) => [l.a, l.b])) {
      yield;
      if (end.kind === 'switch' && !switches.has(end.id))
        switches.set(end.id, this.switches.get(end.id) ?? { id: end.id, name: end.id });
      if (end.kind === 'host' && !hosts.has(end.name))
        hosts.set(end.name, this.hosts.get(end.name) ?? { name: end.name });
    }
    return {
      graph: { switches: [...switches.values()], hosts: [...hosts.values()], links: [...graph.links, ...missing] },
      missing,
      since,
    };
  }

  /** Names of the switch (the switch end's name as the fabric calls it). */
  switchName(id: string): string {
    return this.switches.get(id)?.name || id;
  }

  private *forgetUnlinked(): SlicedWork<void> {
    const switchIds = new Set<string>();
    const hostNames = new Set<string>();
    const note = (e: FabricLinkEnd) => (e.kind === 'switch' ? switchIds.add(e.id) : hostNames.add(e.name));
    for (const { link } of this.links.values()) {
      yield;
      note(link.a);
      note(link.b);
    }
    for (const id of this.switches.keys()) if (!switchIds.has(id)) this.switches.delete(id);
    for (const name of this.hosts.keys()) if (!hostNames.has(name)) this.hosts.delete(name);
  }
}

/** A grouping's answer to which HyperNode holds each switch (by switch id), for fabric health. */
export interface SwitchHolders {
  readonly switchHyperNodes: ReadonlyMap<string, string>;
}

/** What the last report of a fabric said, for marking it when a later poll cannot build it. */
interface LastReport {
  readonly switchHyperNodes: ReadonlyMap<string, string>;
  readonly problems: ReadonlyMap<string, readonly FabricHealthProblem[]>;
}

/** The fabric layer with remembered links and a health report per fabric. */
export class LinkMemory {
  /** Per fabric; kept by the reporter, so a restarted discoverer of the source finds them again. */
  private readonly fabrics: Map<string, FabricLinks>;
  private readonly lastReports: Map<string, LastReport>;

  /** Without `fabricHealth` (previews) nothing is remembered or reported: the fabric layer runs as it is. */
  constructor(
    private readonly source: string,
    private readonly opts: Pick<DiscovererOptions, 'fabricHealth' | 'clock'>,
  ) {
    const kept = <T>(what: string, create: () => T) => opts.fabricHealth?.kept(`${source}/${what}`, create) ?? create();
    this.fabrics = kept('links', () => new Map<string, FabricLinks>());
    this.lastReports = kept('last-reports', () => new Map<string, LastReport>());
  }

  /** fabricHyperNodes over the fabric's graph with its recently missing links put back; reports what is missing. */
  hyperNodes(input: FabricInput): FabricHyperNodes {
    return runWhole(this.hyperNodesSteps(input));
  }

  /** hyperNodes as sliced work, for a poll of the controller. */
  hyperNodesSteps(input: FabricInput): SlicedWork<FabricHyperNodes> {
    return this.rememberedSteps(
      input.fabric,
      input.graph,
      (graph) => fabricHyperNodesSteps({ ...input, graph }),
      input.mapHost,
    );
  }

  /**
   * What `build` makes of `fabric`'s graph with its recently missing links put
   * back (`missing`, empty without a reporter); reports each missing link on
   * the HyperNode `build` says holds its switch, and the links of each Node
   * (`mapHost` names a host's Node; the host name is the Node's without it).
   * The one home of link memory for every grouping: the fabric layer's tiers
   * and a source's own.
   */
  remembered<T extends SwitchHolders>(
    fabric: string,
    graph: FabricGraph,
    build: (graph: FabricGraph, missing: readonly FabricLink[]) => T,
    mapHost: HostMapper = (host) => host,
  ): T {
    return runWhole(this.rememberedSteps(fabric, graph, (g, missing) => oneStep(() => build(g, missing)), mapHost));
  }

  /**
   * remembered as sliced work, `build` too. A link memory serves one poll at a time (its source's poll loop runs one
   * run after the other), so nothing else touches the fabric's links between the steps.
   */
  *rememberedSteps<T extends SwitchHolders>(
    fabric: string,
    graph: FabricGraph,
    build: (graph: FabricGraph, missing: readonly FabricLink[]) => SlicedWork<T>,
    mapHost: HostMapper = (host) => host,
  ): SlicedWork<T> {
    const { source } = this;
    const { fabricHealth: reporter, clock } = this.opts;
    if (!reporter) return yield* build(graph, []);
    let links = this.fabrics.get(fabric);
    if (!links) {
      links = new FabricLinks();
      this.fabrics.set(fabric, links);
    }
    const now = clock.now();
    const recalled = yield* links.recall(graph, now, reporter.linkGraceMs());
    const tree = yield* build(recalled.graph, recalled.missing);
    const problems = new Map<string, FabricHealthProblem[]>();
    for (const link of recalled.missing) {
      yield;
      for (const [end, other] of [
        [link.a, link.b],
        [link.b, link.a],
      ] as const) {
        if (end.kind !== 'switch') continue;
        const hyperNode = tree.switchHyperNodes.get(end.id);
        if (hyperNode === undefined) continue;
        const list = problems.get(hyperNode) ?? [];
        list.push({
          switch: links.switchName(end.id),
          port: end.port,
          what: `link to ${describeEnd(other, links)} missing`,
        });
        problems.set(hyperNode, list);
      }
    }
    this.lastReports.set(fabric, { switchHyperNodes: tree.switchHyperNodes, problems });
    const nodes = yield* nodeLinks(graph.links, recalled, mapHost);
    reporter.report(source, fabric, problems, { at: now, nodes });
    return tree;
  }

  /**
   * Whether a graph equal to the one `fabric` was last built from would build
   * the same tree and report the same: its last recall put no link back, so
   * nothing is in a grace period that time could end. Then the last report is
   * sent again (as a build would send it) and a source may publish its last
   * tree without building. Without a reporter nothing is remembered: true.
   */
  unchanged(fabric: string): boolean {
    const reporter = this.opts.fabricHealth;
    if (!reporter) return true;
    const last = this.lastReports.get(fabric);
    if (this.fabrics.get(fabric)?.missingAtLastRecall !== 0 || !last) return false;
    reporter.report(this.source, fabric, last.problems);
    return true;
  }

  /**
   * A poll of `fabric` built nothing because `switches` stopped answering
   * (its HyperNodes are kept): the HyperNodes of its last good poll holding
   * them are marked, beside the problems that poll found. Nothing without a
   * good poll in this process.
   */
  silent(fabric: string, switches: readonly { readonly id: string; readonly name: string }[], what: string): void {
    const reporter = this.opts.fabricHealth;
    const last = this.lastReports.get(fabric);
    if (!reporter || !last) return;
    const problems = new Map([...last.problems].map(([name, ps]) => [name, [...ps]]));
    for (const s of switches) {
      const hyperNode = last.switchHyperNodes.get(s.id);
      if (hyperNode === undefined) continue;
      problems.set(hyperNode, [...(problems.get(hyperNode) ?? []), { switch: s.name, what }]);
    }
    reporter.report(this.source, fabric, problems);
  }
}

/**
 * Per Node: its hosts' links in this poll (`present`) and those the memory put
 * back (`recalled.missing`, each missing since `recalled.since`); a host no
 * Node holds is left out.
 */
function* nodeLinks(
  present: readonly FabricLink[],
  recalled: { readonly missing: readonly FabricLink[]; readonly since: readonly number[] },
  mapHost: HostMapper,
): SlicedWork<Map<string, HostLinks>> {
  const out = new Map<string, { links: number; missing: number; cutOffSince: number }>();
  const count = (link: FabricLink, since: number | undefined) => {
    for (const end of [link.a, link.b]) {
      if (end.kind !== 'host') continue;
      const node = mapHost(end.name);
      if (node === undefined) continue;
      let n = out.get(node);
      if (!n) out.set(node, (n = { links: 0, missing: 0, cutOffSince: 0 }));
      n.links++;
      if (since !== undefined) {
        n.missing++;
        n.cutOffSince = Math.max(n.cutOffSince, since);
      }
    }
  };
  for (const link of present) {
    count(link, undefined);
    yield;
  }
  for (const [i, link] of recalled.missing.entries()) {
    count(link, recalled.since[i]);
    yield;
  }
  const nodes = new Map<string, HostLinks>();
  for (const [node, n] of out) {
    nodes.set(node, n.missing === n.links ? n : { links: n.links, missing: n.missing });
    yield;
  }
  return nodes;
}

const endKey = (e: FabricLinkEnd) => (e.kind === 'switch' ? `s:${e.id}:${e.port}` : `h:${e.name}:${e.port}`);
/** The same cable whichever end a poll names first. */
function linkKey(l: FabricLink): string {
  const [a, b] = [endKey(l.a), endKey(l.b)];
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

function describeEnd(e: FabricLinkEnd, links: FabricLinks): string {
  return e.kind === 'host' ? `host ${e.name}` : `switch ${links.switchName(e.id)} port ${e.port}`;
}
