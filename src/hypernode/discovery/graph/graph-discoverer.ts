// The graph source (`source: graph`): for fabrics neither UFM nor SNMP can
// read (an inventory system's export, a hand-written lab), a static document
// (graph-fabric-graph.ts) read every interval from a ConfigMap key, a file or a
// URL, through the fabric layer as every fabric source is. No Go counterpart.
// A document that cannot be read or trusted publishes nothing: the
// HyperNodes stay.

import { errorMessage, wrapError } from '../../../util/error-message.ts';
import { LastReported } from '../../../util/reported-once.ts';
import type {
  ConfigMapReader,
  DiscovererFactory,
  DiscovererOptions,
  DiscoveryEntry,
  Snapshot,
} from '../../model/contracts.ts';
import type { FabricGraph } from '../fabric/fabric-graph.ts';
import { CLEARTEXT_CREDENTIALS } from '../../event-reasons.ts';
import type { FabricHyperNodes } from '../fabric/fabric-hypernodes.ts';
import { LinkMemory } from '../fabric/link-memory.ts';
import { hostIndex } from '../fabric/host-mapping.ts';
import { UnmappedHostReport } from '../fabric/unmapped-hosts.ts';
import type { PollRun } from '../poll-loop.ts';
import { PollingDiscoverer } from '../polling-discoverer.ts';
import { STATUS_CODES } from 'node:http';
import { readCredentials } from '../remote/credentials.ts';
import { HttpGetClient, type HttpClientOptions, type HttpResponse } from '../remote/http-client.ts';
import { openAllowedFile } from '../remote/allowed-files.ts';
import { UrlAddressPolicy } from '../remote/allowed-addresses.ts';
import { DEFAULT_INPUT_POLICY } from '../../model/input-policy.ts';
import { quoteInput } from '../../../util/input-fragment.ts';
import { firstFew } from '../../../util/first-few.ts';
import { GRAPH_SOURCE, NETWORK_TOPOLOGY_SOURCE_LABEL } from '../../model/hypernode-labels.ts';
import { describeLocation, parseGraphConfig, type GraphConfig, type GraphLocation } from './graph-config.ts';
import { graphDecoder } from './graph-fabric-graph.ts';
import { betweenSteps, runInSlices, type SlicedWork } from '../../../util/sliced-work.ts';

/**
 * The largest graph document a URL may answer: 16 MiB holds a JSON document of some 200,000 links (an 8-rail fabric of
 * 25,000 hosts; scripts/bench-graph-source.ts' 8,192 hosts take 5.6 MiB). The UFM cap (64 MiB) is sized for answers
 * of about 1 KB an object, which a graph document does not need (docs/security.md §9 has the arithmetic).
 */
export const GRAPH_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** What a Secret without `token` lacks, said after its name. */
const GRAPH_TOKEN_HINT = 'the fabric graph URL needs its bearer token under the key "token"';

/**
 * Where the graph's text comes from instead of its file or URL (the offline `render` and `plan` pass `--graph-file`).
 */
export type GraphReader = (location: GraphLocation, signal: AbortSignal) => Promise<string>;

/** Knobs tests and previews set; production uses the defaults. */
export interface GraphTuning extends Partial<Pick<HttpClientOptions, 'ca' | 'timeoutMs' | 'maxBodyBytes'>> {
  retryBaseMs?: number;
  readGraph?: GraphReader;
}

class GraphDiscoverer extends PollingDiscoverer {
  private readonly unmapped: UnmappedHostReport;
  /** Links of the last good poll, kept through the grace period (fabric health). */
  private readonly memory: LinkMemory;
  /** The layer's problems last logged, so an unchanged list is logged once. */
  private readonly loggedProblems = new LastReported();
  /** The last good poll's tree, without the NVLink tier. */
  private last: Snapshot | undefined;

  constructor(
    entry: DiscoveryEntry,
    opts: DiscovererOptions,
    private readonly config: GraphConfig,
    private readonly tuning: GraphTuning,
  ) {
    super(entry, opts, {
      source: GRAPH_SOURCE,
      title: 'Fabric graph',
      stoppedMessage: 'Fabric graph discovery stopped, closing output channel',
      retryBaseMs: tuning.retryBaseMs,
      nvlink: config.nvlink,
    });
    this.memory = new LinkMemory(GRAPH_SOURCE, opts);
    this.unmapped = new UnmappedHostReport(GRAPH_SOURCE, opts.problems, opts.metrics);
  }

  protected announce(): void {
    const where = this.config.location;
    if (!this.tuning.readGraph && where.kind === 'url' && where.url.startsWith('http://') && this.config.secretRef) {
      this.opts.problems.warning(
        CLEARTEXT_CREDENTIALS.reason,
        `WARNING: the fabric graph URL ${describeLocation(where)} is plain http, so its token is sent unencrypted on every poll; use an https:// URL`,
      );
    }
    this.logger.info('Starting fabric graph discovery', {
      fabric: this.config.fabric,
      from: describeLocation(where),
      interval: `${this.intervalMs}ms`,
    });
  }

  protected async runOnce(): Promise<PollRun> {
    const { opts, config } = this;
    const signal = this.stopping.signal;
    const where = describeLocation(config.location);
    try {
      await opts.nodes.waitForSync(signal);
    } catch {
      return { ok: false };
    }
    let body: string;
    try {
      body = await (this.tuning.readGraph ?? ((l, s) => this.read(l, s)))(config.location, signal);
    } catch (err) {
      if (!signal.aborted)
        opts.problems.failed(
          `Failed to read the fabric graph from ${where}; keeping the existing graph HyperNodes`,
          err,
        );
      return { ok: false };
    }
    let graph: FabricGraph;
    try {
      // In slices (sliced-work.ts): the probes are answered while a large document is read.
      graph = await runInSlices(graphDecoder(body), signal);
    } catch (err) {
      if (signal.aborted) return { ok: false };
      opts.problems.failed(`The fabric graph from ${where} is invalid; keeping the existing graph HyperNodes`, err);
      return { ok: false };
    }
    // Grouping a large fabric is a step of its own, in slices too: the probes are answered meanwhile.
    await betweenSteps();
    const { mapHost } = hostIndex(config.hostMapping, opts.nodes.list());
    const fabric = config.fabric;
    const { minSharedHosts } = config;
    const input = { graph, fabric, source: GRAPH_SOURCE, mapHost, minSharedHosts, logger: this.logger };
    let tree: FabricHyperNodes;
    try {
      tree = await runInSlices(this.memory.hyperNodesSteps(input), signal);
    } catch (err) {
      if (signal.aborted) return { ok: false };
      throw err;
    }
    this.logProblems(tree.problems.map((p) => p.message));
    if (tree.hostCount === 0) {
      opts.problems.failed(
        `The fabric graph from ${where} has no host; keeping the existing graph HyperNodes`,
        new Error(`no host is cabled to a switch (${graph.switches.length} switches, ${graph.links.length} links)`),
      );
      return { ok: false };
    }
    this.unmapped.report(config.fabric, tree.leafHosts, mapHost, 'Fabric graph hosts that match no Node are left out');
    if (tree.snapshot.length === 0) {
      opts.problems.failed(
        `The fabric graph from ${where} names no Kubernetes Node; keeping the existing graph HyperNodes`,
        new Error(`none of its ${tree.hostCount} hosts is a Node; check config.hostMapping`),
      );
      return { ok: false };
    }
    this.logger.v(3).info('Built the fabric graph HyperNodes', {
      fabric: config.fabric,
      switches: graph.switches.length,
      hosts: tree.hostCount,
      hyperNodes: tree.snapshot.length,
    });
    this.last = tree.snapshot;
    const snapshot = await runInSlices(this.placed(this.last), signal);
    opts.problems.recovered();
    return { snapshot, ok: true };
  }

  protected override *rebuild(): SlicedWork<Snapshot | undefined> {
    return this.last && (yield* this.placed(this.last));
  }

  private placed(tree: Snapshot): SlicedWork<Snapshot> {
    return this.nvlink.placeSteps(this.config.fabric, tree, { [NETWORK_TOPOLOGY_SOURCE_LABEL]: GRAPH_SOURCE });
  }

  /**
   * The graph's text from its ConfigMap key, its file, or its URL with the Secret's token and CA (re-read every run).
   */
  private async read(location: GraphLocation, signal: AbortSignal): Promise<string> {
    if (location.kind === 'configMap') {
      const { namespace, name, key } = location;
      if (!this.opts.configMaps) throw new Error('ConfigMaps cannot be read here; pass the document with --graph-file');
      let configMap: Awaited<ReturnType<ConfigMapReader['get']>>;
      try {
        configMap = await this.opts.configMaps.get(namespace, name, signal);
      } catch (err) {
        throw wrapError(`failed to read ConfigMap ${namespace}/${name}`, err);
      }
      if (!configMap)
        throw new Error(
          `ConfigMap ${namespace}/${name} not found (the chart's Role lets the controller read ConfigMaps of its own namespace only)`,
        );
      const text = configMap.data?.[key];
      if (text === undefined)
        throw new Error(
          `ConfigMap ${namespace}/${name} has no key ${quoteInput(key)}; its keys: ${firstFew(Object.keys(configMap.data ?? {}), 10) || 'none'}`,
        );
      return text;
    }
    const policy = this.opts.inputPolicy ?? DEFAULT_INPUT_POLICY;
    const maxBytes = this.tuning.maxBodyBytes ?? GRAPH_MAX_BODY_BYTES;
    if (location.kind === 'file') {
      try {
        const file = await openAllowedFile(location.path, 'config.file', policy);
        try {
          const { size } = await file.stat();
          if (size > maxBytes) throw new Error(`it holds ${size} bytes, more than the limit of ${maxBytes} bytes`);
          return await file.readFile({ encoding: 'utf8', signal });
        } finally {
          await file.close();
        }
      } catch (err) {
        const reason =
          (err as NodeJS.ErrnoException).code === 'ENOENT'
            ? 'no such file (is the ConfigMap mounted there?)'
            : errorMessage(err);
        throw new Error(`cannot read ${location.path}: ${reason}`, { cause: err });
      }
    }
    let authorization = '';
    let ca = this.tuning.ca;
    const ref = this.config.secretRef;
    if (ref) {
      const to = { url: location.url, insecureSkipVerify: false };
      const credentials = await readCredentials(this.opts.secrets, ref, to, signal, 'token', GRAPH_TOKEN_HINT);
      authorization = `Bearer ${credentials.token!.toString('latin1')}`;
      // The Secret's CA replaces every other root for this URL: trust is pinned to the private CA.
      ca = credentials.ca ?? ca;
    }
    const client = new HttpGetClient({
      insecureSkipVerify: false,
      ...(ca === undefined ? {} : { ca }),
      timeoutMs: this.tuning.timeoutMs,
      maxBodyBytes: maxBytes,
      addresses: new UrlAddressPolicy(policy.urlCidrs),
    });
    const shown = describeLocation(location);
    this.logger.v(4).info('Fetching the fabric graph', { url: shown });
    let res: HttpResponse;
    try {
      res = await client.get(location.url, authorization, signal);
    } catch (err) {
      throw wrapError(`GET ${shown} failed`, err);
    }
    if (res.status !== 200)
      throw new Error(
        // The standard phrase, not the server's: a reason phrase is whatever the server chose to say.
        `GET ${shown}: unexpected status code ${res.status} ${STATUS_CODES[res.status] ?? ''}`.trimEnd(),
      );
    return res.body;
  }

  private logProblems(messages: readonly string[]): void {
    if (!this.loggedProblems.isNew(messages.join('\n'))) return;
    for (const problem of messages)
      this.logger.warn('Fabric graph entry joins no group as written', { fabric: this.config.fabric, problem });
  }
}

/** Builds graph discoverers; `tuning` sets transport limits (tests pass a CA) or replaces the reading (previews). */
export function createGraphDiscovererFactory(tuning: GraphTuning = {}): DiscovererFactory {
  return async (entry, opts) => new GraphDiscoverer(entry, opts, parseGraphConfig(entry, opts.inputPolicy), tuning);
}

export const graphDiscovererFactory: DiscovererFactory = createGraphDiscovererFactory();
