// The ibnetdiscover source (`source: ibnetdiscover`). InfiniBand fabrics run
// by OpenSM have no UFM to ask, but `ibnetdiscover` (infiniband-diags) prints
// the whole subnet from any host on it: this source reads that output, run
// here or saved to a file by a job, and hands each subnet's graph to the
// fabric layer, as every fabric source does. No Go counterpart: Volcano reads
// InfiniBand only through UFM. An output it cannot trust (failed, cut short,
// another format) never deletes a HyperNode: its fabric keeps what it has.
// The output is read as it arrives and never held whole; an unchanged output
// publishes the last tree again (last-builds.ts). A node-name-map
// (config.nodeNameMap) is read at every poll by the same reader as a saved
// output, and parsed again when its bytes change.

import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { errorMessage, wrapError } from '../../../util/error-message.ts';
import { abortReason } from '../../../util/abort.ts';
import { betweenSteps, runInSlices, type SlicedWork } from '../../../util/sliced-work.ts';
import { LastReported } from '../../../util/reported-once.ts';
import type { DiscovererFactory, DiscovererOptions, DiscoveryEntry, Snapshot } from '../../model/contracts.ts';
import { IBNETDISCOVER_FABRIC_LABEL, IBNETDISCOVER_SOURCE } from '../../model/hypernode-labels.ts';
import { FabricRound } from '../fabric/fabric-round.ts';
import { hostsOnSpines } from '../fabric/hosts-on-spines.ts';
import { MiscablingReport } from '../fabric/miscabling-report.ts';
import type { HostIndex } from '../fabric/host-mapping.ts';
import { LinkMemory } from '../fabric/link-memory.ts';
import { UnmappedHostReport } from '../fabric/unmapped-hosts.ts';
import type { PollRun } from '../poll-loop.ts';
import { PollingDiscoverer } from '../polling-discoverer.ts';
import { ibnetdiscoverFabricGraph, type IbnetdiscoverFabricGraph } from './ibnetdiscover-fabric-graph.ts';
import { IbnetdiscoverFormatError } from './ibnetdiscover-format-error.ts';
import { parseNodeNameMap, type NodeNames } from './ib-node-name-map.ts';
import type { IbSubnet } from './ib-subnet.ts';
import { parseIbnetdiscoverConfig, type IbFabric, type IbnetdiscoverConfig } from './ibnetdiscover-config.ts';
import { IbnetdiscoverReader } from './ibnetdiscover-output.ts';
import { HANDED_FD, runBounded, type RunOutput } from './ibnetdiscover-run.ts';
import { NODE_NAME_MAP_OPTION } from './ibnetdiscover-args.ts';
import { DEFAULT_INPUT_POLICY, type InputPolicy } from '../../model/input-policy.ts';
import { openAllowedFile } from '../remote/allowed-files.ts';
import { LastBuilds, NodeLookups } from './last-builds.ts';

/** What the report of HCAs without a host name tells the operator to change. */
export const UNNAMED_HCA_CHANGE =
  'map each GUID to its Node with a "GUID node" line in config.hostGuids, or name it "<hostname> <device>" in the node-name-map config.nodeNameMap reads, or set the HCA\'s node description to "<hostname> <device>" (rdma-ndd does)';

/**
 * Where a fabric's output comes from instead of its command or file (`render --ibnetdiscover-capture`, tests): whole,
 * or chunk by chunk.
 */
export type IbOutputReader = (
  fabric: IbFabric,
  signal: AbortSignal,
) => Promise<Buffer | string | AsyncIterable<Uint8Array>>;

/** The names that stand for node descriptions at one poll, and a digest of what they were read from. */
interface PollNames {
  readonly names: NodeNames;
  readonly digest: string;
}

/** A fresh output's graph, and what the tree built from it will stand on. */
interface FreshGraph {
  readonly ib: IbnetdiscoverFabricGraph;
  readonly nodeCount: number;
  readonly digest: string;
  readonly lookups: NodeLookups;
}

/** What a fabric's tree is and says: all a later poll of the same output needs to publish it again. */
interface FabricBuild {
  readonly snapshot: Snapshot;
  /** Links and hosts that join no group as cabled. */
  readonly problems: readonly string[];
  /** Hosts cabled to a leaf, Node or not. */
  readonly hostCount: number;
  readonly counts: {
    readonly switches: number;
    readonly cas: number;
    readonly hosts: number;
    readonly links: number;
    readonly nodes: number;
  };
  readonly notNodes: readonly string[];
  readonly unnamed: readonly string[];
  readonly skipped: IbnetdiscoverFabricGraph['skipped'];
}

/** Knobs tests and previews set; production uses the defaults. */
export interface IbnetdiscoverTuning {
  retryBaseMs?: number;
  /** Replaces running the command and reading the file. */
  readOutput?: IbOutputReader;
}

class IbnetdiscoverDiscoverer extends PollingDiscoverer {
  /** Each fabric's last published HyperNodes, kept while it fails. */
  private readonly fabricRound: FabricRound;
  /** Links of the last good poll, kept through the grace period (fabric health). */
  private readonly memory: LinkMemory;
  private readonly unmapped: UnmappedHostReport;
  private readonly miscabling: MiscablingReport;
  /** Per fabric, the stderr last logged. */
  private readonly loggedStderr = new LastReported();
  /** Each fabric's last good build, published again while its output does not change. */
  private readonly lastBuilds = new LastBuilds<FabricBuild>();
  /** Per fabric, the diagnostic lines last warned of. */
  private readonly warnedStderrLines = new LastReported();
  /** The node-name-map as last read, kept while its bytes stay the same. */
  private nodeNameMap: PollNames | undefined;

  constructor(
    entry: DiscoveryEntry,
    opts: DiscovererOptions,
    private readonly config: IbnetdiscoverConfig,
    private readonly tuning: IbnetdiscoverTuning,
  ) {
    super(entry, opts, {
      source: IBNETDISCOVER_SOURCE,
      title: 'InfiniBand',
      stoppedMessage: 'InfiniBand fabric discovery stopped, closing output channel',
      retryBaseMs: tuning.retryBaseMs,
      nvlink: config.nvlink,
    });
    this.memory = new LinkMemory(IBNETDISCOVER_SOURCE, opts);
    this.unmapped = new UnmappedHostReport(IBNETDISCOVER_SOURCE, opts.problems, opts.metrics);
    this.miscabling = new MiscablingReport(opts.problems, 'link(s) or host(s) join no group as cabled');
    this.fabricRound = new FabricRound({
      nodes: opts.nodes,
      hostMapping: config.hostMapping,
      hyperNodes: opts.hyperNodes,
      problems: opts.problems,
      source: IBNETDISCOVER_SOURCE,
      fabricLabel: IBNETDISCOVER_FABRIC_LABEL,
      kind: 'InfiniBand',
      nvlink: this.nvlink,
    });
  }

  protected override rebuild(): SlicedWork<Snapshot | undefined> {
    return this.fabricRound.rebuild();
  }

  private get policy(): InputPolicy {
    return this.opts.inputPolicy ?? DEFAULT_INPUT_POLICY;
  }

  /** What runs for a fabric: the operator's program and the ConfigMap's checked arguments. */
  private argv(output: Extract<IbFabric['output'], { kind: 'command' }>): string[] {
    const map = output.nodeNameMap === undefined ? [] : [NODE_NAME_MAP_OPTION, `/dev/fd/${HANDED_FD}`];
    return [...this.policy.ibnetdiscoverCommand, ...output.args, ...map];
  }

  protected announce(): void {
    for (const f of this.config.fabrics) {
      const from =
        f.output.kind === 'command'
          ? {
              command: this.argv(f.output).join(' '),
              ...(f.output.nodeNameMap === undefined ? {} : { nodeNameMap: f.output.nodeNameMap }),
            }
          : { file: f.output.path };
      this.logger.info('Starting InfiniBand fabric discovery', {
        fabric: f.name,
        ...from,
        interval: `${this.intervalMs}ms`,
      });
    }
  }

  protected runOnce(): Promise<PollRun> {
    return this.fabricRound.run(
      this.config.fabrics.map((f) => f.name),
      (i, hosts) => this.discoverFabric(this.config.fabrics[i]!, hosts),
      this.stopping.signal,
    );
  }

  /** Hands the fabric's output to `sink` as it arrives: served (previews), the command's stdout, or the saved file. */
  private async output(fabric: IbFabric, sink: (chunk: Uint8Array) => void): Promise<void> {
    const signal = this.stopping.signal;
    if (this.tuning.readOutput) {
      const served = await this.tuning.readOutput(fabric, signal);
      if (typeof served === 'string') sink(Buffer.from(served));
      else if (served instanceof Uint8Array) sink(served);
      else for await (const chunk of served) sink(chunk);
      return;
    }
    const { output } = fabric;
    if (output.kind === 'command') {
      const map =
        output.nodeNameMap === undefined
          ? undefined
          : await this.openConfigured(output.nodeNameMap, `${NODE_NAME_MAP_OPTION} of config.command`);
      let run: RunOutput;
      try {
        run = await runBounded(
          this.argv(output),
          { timeoutMs: this.config.timeoutMs, maxOutputBytes: this.config.maxOutputBytes },
          signal,
          sink,
          map?.fd,
        );
      } finally {
        await map?.close();
      }
      // ibnetdiscover warns on stderr about nodes it could not query, beside a topology it still prints.
      const warnings = run.stderr.replace(/\[\d+\]/g, '[…]');
      if (warnings !== '' && this.loggedStderr.isNew(warnings, fabric.name))
        this.logger.info('ibnetdiscover wrote to stderr', { fabric: fabric.name, stderr: run.stderr });
      return;
    }
    await this.readSaved(output.path, 'config.file', output.maxAgeMs, sink);
  }

  /** Opens a file the configuration names, under the operator's file rule; the error names the path and why. */
  private async openConfigured(path: string, key: string): Promise<FileHandle> {
    try {
      return await openAllowedFile(path, key, this.policy);
    } catch (err) {
      const reason =
        (err as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'no such file (is the job that writes it running, and its directory mounted here?)'
          : errorMessage(err);
      throw new Error(`cannot use ${path}: ${reason}`, { cause: err });
    }
  }

  /** Reads a file the configuration names under `key` (`config.file`, `config.nodeNameMap`) into `sink`. */
  private async readSaved(
    path: string,
    key: string,
    maxAgeMs: number | undefined,
    sink: (chunk: Uint8Array) => void,
  ): Promise<void> {
    const file = await this.openConfigured(path, key);
    try {
      const st = await file.stat();
      if (st.size > this.config.maxOutputBytes)
        throw new Error(
          `it holds ${st.size} bytes, more than config.maxOutputMiB (${this.config.maxOutputBytes / 2 ** 20} MiB)`,
        );
      const ageMs = this.opts.clock.now() - st.mtimeMs;
      if (maxAgeMs !== undefined && ageMs > maxAgeMs) {
        throw new Error(
          `it was written ${Math.round(ageMs / 1000)}s ago, more than maxAge (${Math.round(maxAgeMs / 1000)}s): is the job that writes it running?`,
        );
      }
      if (st.size === 0) return;
      // No more than the size checked: a file that grows while it is read (its writer's next run) reads as cut short
      // and is refused.
      const signal = this.stopping.signal;
      for await (const chunk of file.createReadStream({ start: 0, end: st.size - 1, autoClose: false })) {
        // Leaving the loop ends the stream; a stop is seen between chunks.
        if (signal.aborted) throw abortReason(signal);
        sink(chunk as Buffer);
      }
    } catch (err) {
      throw wrapError(`cannot use ${path}`, err);
    } finally {
      await file.close();
    }
  }

  /**
   * Reads a fresh output: the last build when the output is the same and it still
   * stands, else the output's graph. Its own step, so the parsed subnet can be
   * collected before the tree is built.
   */
  private async readGraph(fabric: IbFabric, hosts: HostIndex): Promise<{ last: FabricBuild } | { fresh: FreshGraph }> {
    const nodeNames = await this.nodeNames();
    const reader = new IbnetdiscoverReader();
    const hash = createHash('sha256');
    await this.output(fabric, (chunk) => {
      hash.update(chunk);
      reader.write(chunk);
    });
    let subnet: IbSubnet;
    await betweenSteps();
    try {
      subnet = reader.end();
    } catch (err) {
      throw err instanceof IbnetdiscoverFormatError ? wrapError('the ibnetdiscover output is not usable', err) : err;
    }
    this.warnStderrLines(fabric, reader);
    const digest = `${hash.digest('hex')}${nodeNames.digest}`;
    // memory.unchanged() sends the last health report again, so it is asked only when the last build can stand.
    const last = this.lastBuilds.unchanged(fabric.name, digest, hosts);
    if (last && this.memory.unchanged(fabric.name)) return { last };
    // Each step of a large fabric's read is a few hundred milliseconds: the probes are answered between them.
    await betweenSteps();
    const lookups = new NodeLookups(hosts);
    const ib = ibnetdiscoverFabricGraph(subnet, {
      hostGuids: this.config.hostGuids,
      nodeNames: nodeNames.names,
      hcas: fabric.hcas,
      nodeOf: lookups.mapHost,
      isNode: lookups.isNode,
    });
    await betweenSteps();
    return { fresh: { ib, nodeCount: subnet.nodeCount, digest, lookups } };
  }

  /**
   * The names of config.nodeNameMap, read at every poll through the reader of saved outputs and parsed again when its
   * bytes changed, under hostGuids' names; hostGuids' alone without a map. Throws naming the file and the line.
   */
  private async nodeNames(): Promise<PollNames> {
    const { nodeNameMap: path, nodeNames } = this.config;
    if (path === undefined) return { names: nodeNames, digest: '' };
    const chunks: Uint8Array[] = [];
    try {
      await this.readSaved(path, 'config.nodeNameMap', undefined, (chunk) => chunks.push(chunk));
    } catch (err) {
      throw wrapError('config.nodeNameMap', err);
    }
    const bytes = Buffer.concat(chunks);
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (this.nodeNameMap?.digest !== digest) {
      const names = new Map(parseNodeNameMap(bytes.toString('utf8'), `config.nodeNameMap ${path}`));
      for (const [guid, name] of nodeNames) names.set(guid, name);
      this.nodeNameMap = { names, digest };
      this.logger.info('Read the node-name-map', { file: path, names: names.size });
    }
    return this.nodeNameMap;
  }

  /** One warning per fabric of the diagnostic lines an output holds (their count and the first), while they last. */
  private warnStderrLines(fabric: IbFabric, reader: IbnetdiscoverReader): void {
    const { stderrLines } = reader;
    const first = stderrLines.first();
    if (!this.warnedStderrLines.isNew(`${stderrLines.count} ${first}`, fabric.name) || stderrLines.count === 0) return;
    this.logger.warn('Skipped diagnostic lines in the InfiniBand output', {
      fabric: fabric.name,
      count: stderrLines.count,
      first,
    });
  }

  /** The tree of a fresh graph, grouped through the link memory in slices (sliced-work.ts). */
  private async build(fabric: IbFabric, { ib, nodeCount }: FreshGraph, hosts: HostIndex): Promise<FabricBuild> {
    // The link memory changes now: the last build no longer stands, whatever this one ends in.
    this.lastBuilds.forget(fabric.name);
    const { graph } = ib;
    if (graph.switches.length === 0) {
      throw new Error(
        `the output shows no switch (${nodeCount} nodes): run ibnetdiscover on a host whose HCA port is cabled to the fabric (config.command -C/-P)`,
      );
    }
    const present = new Set(graph.hosts.map((h) => h.name));
    const steps = this.memory.hyperNodesSteps({
      graph,
      fabric: fabric.name,
      source: IBNETDISCOVER_SOURCE,
      labels: { [IBNETDISCOVER_FABRIC_LABEL]: fabric.name },
      // The graph's hosts are Node names where they are Nodes (ibnetdiscover-fabric-graph.ts); a host the link
      // memory puts back (its HCAs are gone from this output) was named by its Node when it was placed.
      mapHost: (host) => (ib.nodes.has(host) || (!present.has(host) && hosts.isNode(host)) ? host : undefined),
      minSharedHosts: this.config.minSharedHosts,
      logger: this.logger,
    });
    const tree = await runInSlices(steps, this.stopping.signal);
    return {
      snapshot: tree.snapshot,
      problems: [
        ...tree.problems.map((p) => p.message),
        ...hostsOnSpines(graph.links, new Map(graph.switches.map((sw) => [sw.id, sw.name]))),
      ],
      hostCount: tree.hostCount,
      counts: {
        switches: graph.switches.length,
        cas: nodeCount - graph.switches.length,
        hosts: graph.hosts.length,
        links: graph.links.length,
        nodes: ib.nodes.size,
      },
      notNodes: ib.notNodes,
      unnamed: ib.unnamed,
      skipped: ib.skipped,
    };
  }

  private async discoverFabric(fabric: IbFabric, hosts: HostIndex): Promise<Snapshot> {
    const started = this.opts.clock.now();
    const read = await this.readGraph(fabric, hosts);
    const build = 'last' in read ? read.last : await this.build(fabric, read.fresh, hosts);
    const { counts } = build;
    const durationSeconds = (this.opts.clock.now() - started) / 1000;
    this.opts.metrics?.fabricPolled(IBNETDISCOVER_SOURCE, fabric.name, {
      answered: counts.switches,
      stale: 0,
      unreachable: 0,
      links: counts.links,
      hosts: counts.hosts,
      durationSeconds,
    });
    this.logger.v(3).info('Read InfiniBand fabric', {
      fabric: fabric.name,
      switches: counts.switches,
      cas: counts.cas,
      hosts: counts.hosts,
      nodes: counts.nodes,
      ...build.skipped,
      unchanged: 'last' in read,
      durationMs: Math.round(durationSeconds * 1000),
    });
    this.miscabling.report(fabric.name, build.problems);
    this.unmapped.reportUnmapped(fabric.name, build.notNodes, 'InfiniBand hosts that match no Node are left out');
    this.unmapped.reportUnmapped(fabric.name, build.unnamed, 'InfiniBand HCAs without a host name are left out', {
      part: 'unnamed',
      change: UNNAMED_HCA_CHANGE,
    });
    if (build.hostCount === 0)
      throw new Error(`no host is cabled to a switch (${counts.switches} switches, ${counts.cas} CAs and routers)`);
    if (build.snapshot.length === 0) {
      throw new Error(
        `none of the ${build.hostCount} hosts is a Kubernetes Node (${build.notNodes.length} named, ${build.unnamed.length} HCAs without a host name): check config.hostMapping and config.hostGuids`,
      );
    }
    if ('fresh' in read) this.lastBuilds.set(fabric.name, read.fresh.digest, read.fresh.lookups, build);
    return build.snapshot;
  }
}

/** Builds ibnetdiscover discoverers; `tuning` serves outputs (previews, tests) or shortens retries. */
export function createIbnetdiscoverDiscovererFactory(tuning: IbnetdiscoverTuning = {}): DiscovererFactory {
  return async (entry, opts) => {
    const config = parseIbnetdiscoverConfig(entry, opts.inputPolicy);
    opts.logger
      .with({ source: IBNETDISCOVER_SOURCE })
      .info('InfiniBand discoverer initialized', { fabrics: config.fabrics.map((f) => f.name).join(',') });
    return new IbnetdiscoverDiscoverer(entry, opts, config, tuning);
  };
}

export const ibnetdiscoverDiscovererFactory: DiscovererFactory = createIbnetdiscoverDiscovererFactory();
