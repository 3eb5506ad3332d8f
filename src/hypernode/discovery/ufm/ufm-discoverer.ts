// The UFM discoverer (`source: ufm`, docs/design.md §2.1): polls NVIDIA UFM for
// its port list every `interval` and emits leaf/spine HyperNodes. Mirrors
// pkg/controllers/hypernode/discovery/ufm/ufm.go, with the improvements of
// docs/differences-from-go.md items 3 and 10: a failed fetch, a malformed body or an
// answer without Computer ports yields no snapshot (nothing is deleted) and is
// retried with backoff before the next tick; credentials are re-read from the
// Secret before every run; every request has a deadline; a bad endpoint is a
// construction error instead of a crash. `config.mode: fabric` instead reads
// systems, links and port states from one or more UFM fabrics and builds each
// fabric's whole tree through the fabric layer (ufm-fabric-graph.ts).

import type { Logger } from '../../../log.ts';
import type { Channel } from '../../../util/channel.ts';
import { startPolling } from '../poll-loop.ts';
import type { Discoverer, DiscovererFactory, DiscovererOptions, DiscoveryEntry, Snapshot } from '../../api/interface.ts';
import { unknownKeys, warnUnknownKeys } from '../../config/unknown-keys.ts';
import { NO_CREDENTIALS, readCredentials, type Credentials } from './credentials.ts';
import { decodeLinks, decodePortStates, decodeSystems, RESOURCE_PATHS } from './fabric-resources.ts';
import { fabricHyperNodes } from '../fabric/fabric-hypernodes.ts';
import { hostMapper, type HostMapper } from '../fabric/host-mapping.ts';
import { UnmappedHostReport } from '../fabric/unmapped-hosts.ts';
import { FabricParts } from '../fabric/fabric-parts.ts';
import { UFM_FABRIC_LABEL, ufmFabricGraph } from './ufm-fabric-graph.ts';
import type { HttpClientOptions } from './http-client.ts';
import { decodePorts, PORTS_RESOURCE_PATH, type UfmPort } from './ports.ts';
import { buildSnapshot, computerHosts, UFM_SOURCE } from './topology.ts';
import { CONFIG_KEYS, parseUfmConfig, type UfmConfig } from './ufm-config.ts';
import { resourceUrl, UfmEndpoint, type ResourceBodyReader, type UfmResource } from './ufm-endpoint.ts';

export type { ResourceBodyReader, UfmResource } from './ufm-endpoint.ts';
import { errorMessage, wrapError } from '../../../util/error-message.ts';
import { CLEARTEXT_CREDENTIALS } from '../../event-reasons.ts';

/** First retry after a failed run; doubles per failure up to RETRY_MAX_MS, never past the next tick. */
export const RETRY_BASE_MS = 5_000;
export const RETRY_MAX_MS = 5 * 60_000;
/** Shortest poll period honoured: `interval: 1ms` would otherwise poll UFM back to back. */
export const MIN_INTERVAL_MS = 1_000;

/** Knobs tests (and embedders) may set; production uses the defaults. */
export interface UfmTuning extends Partial<Omit<HttpClientOptions, 'insecureSkipVerify'>> {
  retryBaseMs?: number;
  /** Replaces the HTTP requests: no Secret is read and UFM is never contacted. */
  readResourceBody?: ResourceBodyReader;
}


class UfmDiscoverer implements Discoverer {
  private readonly logger: Logger;
  private readonly stopping = new AbortController();
  private readonly retryBaseMs: number;
  private readonly intervalMs: number;
  private readonly reader: ResourceBodyReader | undefined;
  /** Fabric mode: each fabric's last published HyperNodes, kept while its UFM fails. */
  private readonly parts: FabricParts;
  private readonly unmapped: UnmappedHostReport;

  constructor(
    entry: DiscoveryEntry,
    private readonly opts: DiscovererOptions,
    private readonly config: UfmConfig,
    private readonly endpoints: readonly UfmEndpoint[],
    /** Why reading each endpoint's Secret at construction failed, for start()'s error. */
    private readonly credentialsErrors: readonly (string | undefined)[],
    tuning: UfmTuning,
  ) {
    this.logger = opts.logger.with({ source: UFM_SOURCE });
    this.retryBaseMs = tuning.retryBaseMs ?? RETRY_BASE_MS;
    this.reader = tuning.readResourceBody;
    this.unmapped = new UnmappedHostReport(UFM_SOURCE, this.logger, opts.metrics);
    this.parts = new FabricParts({ nodes: opts.nodes, hostMapping: config.hostMapping, hyperNodes: opts.hyperNodes, problems: opts.problems, source: UFM_SOURCE, fabricLabel: UFM_FABRIC_LABEL, kind: 'UFM' });
    this.intervalMs = Math.max(entry.intervalMs, MIN_INTERVAL_MS);
    if (this.intervalMs !== entry.intervalMs) {
      this.logger.warn('UFM poll interval too short, using the minimum', { interval: `${entry.intervalMs}ms`, minimum: `${MIN_INTERVAL_MS}ms` });
    }
  }

  resultSynced(): void {}

  async start(): Promise<Channel<Snapshot>> {
    const fabricMode = this.config.mode === 'fabric';
    this.endpoints.forEach((ep, i) => {
      const which = fabricMode ? `fabric ${ep.fabric.name}: ` : '';
      if (ep.fabric.endpoint === '') throw new Error(`${which}UFM endpoint is not configured`);
      if (!this.reader && !ep.hasCredentials()) {
        const why = this.credentialsErrors[i];
        throw new Error(`${which}UFM authentication credentials are not configured${why ? `: ${why}` : ''}`);
      }
    });
    for (const ep of this.endpoints) {
      const url = resourceUrl(ep.fabric.endpoint, ep.fabric.auth, PORTS_RESOURCE_PATH);
      if (!this.reader && url.startsWith('http://')) {
        // Go sends the password in cleartext without a word; it still works, but say so loudly.
        const what = ep.fabric.auth === 'token' ? 'the UFM access token is' : 'the UFM username and password are';
        this.opts.problems.warning(
          CLEARTEXT_CREDENTIALS.reason,
          `WARNING: the UFM endpoint ${url} is plain http, so ${what} sent unencrypted on every poll; use an https:// endpoint`,
        );
      }
    }
    if (fabricMode) {
      for (const ep of this.endpoints) this.logger.info('Starting UFM fabric discovery', { fabric: ep.fabric.name, endpoint: ep.fabric.endpoint, auth: ep.fabric.auth, interval: `${this.intervalMs}ms` });
    } else {
      this.logger.info('Starting UFM network topology discovery', { endpoint: this.endpoints[0]!.fabric.endpoint, interval: `${this.intervalMs}ms` });
    }
    const schedule = { clock: this.opts.clock, intervalMs: this.intervalMs, retryBaseMs: this.retryBaseMs, retryMaxMs: RETRY_MAX_MS, signal: this.stopping.signal };
    return startPolling(schedule, (out) => this.config.mode === 'fabric' ? this.discoverFabrics(out) : this.discoverOnce(out), () => this.logger.info('UFM network topology discovery stopped, closing output channel'));
  }

  async stop(): Promise<void> {
    this.stopping.abort();
  }

  private send(out: Channel<Snapshot>, snapshot: Snapshot): void {
    const sent = out.trySend(snapshot);
    if (sent === 'sent') this.logger.v(3).info('Sent network topology data', { count: snapshot.length });
    else if (sent === 'full') this.logger.warn('Failed to send network topology data, channel might be full');
  }

  /** Legacy mode: one run; true when a snapshot was produced. */
  private async discoverOnce(out: Channel<Snapshot>): Promise<boolean> {
    const signal = this.stopping.signal;
    const ep = this.endpoints[0]!;
    if (!this.reader) {
      try {
        await ep.refresh(this.opts.secrets, signal);
      } catch (err) {
        if (!signal.aborted) this.opts.problems.failed('Failed to get credentials from secret', err);
        return false;
      }
    }
    let ports: UfmPort[];
    try {
      ports = await this.fetchPorts(ep);
    } catch (err) {
      if (!signal.aborted) this.opts.problems.failed('Failed to fetch UFM data', err);
      return false;
    }
    this.logger.v(3).info('Successfully retrieved UFM data', { interfaceCount: ports.length });
    const snapshot = buildSnapshot(ports, this.logger);
    if (snapshot.length === 0) {
      // Go would delete every ufm HyperNode here; an empty fabric is far more
      // likely a UFM fault than reality.
      this.opts.problems.failed(
        'UFM reported no Computer ports; keeping the existing ufm HyperNodes and retrying',
        new Error(`${ports.length} ports in the answer, none of them a Computer port`),
      );
      return false;
    }
    // Legacy mode keeps such hosts as members (as Volcano does), where they select nothing.
    // The controller starts sources once its caches synced; an unsynced one would count every host.
    if (this.opts.nodes.hasSynced()) {
      this.unmapped.report(ep.fabric.name, computerHosts(ports), hostMapper(this.config.hostMapping, this.opts.nodes.list()), 'UFM hosts that match no Node are leaf members that select nothing');
    }
    this.opts.problems.recovered();
    this.send(out, snapshot);
    return true;
  }

  private async fetchPorts(ep: UfmEndpoint): Promise<UfmPort[]> {
    const body = await this.body(ep, 'ports', PORTS_RESOURCE_PATH);
    try {
      return decodePorts(body);
    } catch (err) {
      throw wrapError('failed to decode response', err);
    }
  }

  private async body(ep: UfmEndpoint, resource: UfmResource, path: string): Promise<string> {
    if (this.reader) return this.reader(ep.fabric.endpoint, resource, this.stopping.signal);
    this.logger.v(4).info('Sending request to UFM server', { url: resourceUrl(ep.fabric.endpoint, ep.fabric.auth, path) });
    return ep.get(path, this.stopping.signal);
  }

  /**
   * Fabric mode: every fabric, one after the other (one answer in memory at a
   * time). A fabric whose UFM fails keeps its last HyperNodes (after a restart:
   * those in the cache labelled with its name), so it never deletes them and
   * never holds back the others. True when every fabric succeeded.
   */
  private async discoverFabrics(out: Channel<Snapshot>): Promise<boolean> {
    const signal = this.stopping.signal;
    const result = await this.parts.round(this.endpoints.map((ep) => ep.fabric.name), (i, mapHost) => this.discoverFabric(this.endpoints[i]!, mapHost), signal);
    if (!result) return false;
    const { snapshot, failed } = result;
    if (failed === this.endpoints.length) return false;
    if (failed === 0) this.opts.problems.recovered();
    this.send(out, snapshot);
    return failed === 0;
  }

  private async discoverFabric(ep: UfmEndpoint, mapHost: HostMapper): Promise<Snapshot> {
    const fabric = ep.fabric.name;
    if (!this.reader) {
      try {
        await ep.refresh(this.opts.secrets, this.stopping.signal);
      } catch (err) {
        throw wrapError('failed to get credentials from secret', err);
      }
    }
    const decoded = async <T>(resource: UfmResource, decode: (body: string) => T): Promise<T> => {
      const body = await this.body(ep, resource, RESOURCE_PATHS[resource]);
      try {
        return decode(body);
      } catch (err) {
        throw wrapError(`failed to decode the ${resource} answer`, err);
      }
    };
    const systems = await decoded('systems', decodeSystems);
    const links = await decoded('links', decodeLinks);
    const ports = await decoded('ports', decodePortStates);
    this.logger.v(3).info('Successfully retrieved UFM fabric', { fabric, systems: systems.length, links: links.length, ports: ports.size });
    const tree = fabricHyperNodes({ graph: ufmFabricGraph({ systems, links, ports }), fabric, source: UFM_SOURCE, labels: { [UFM_FABRIC_LABEL]: fabric }, mapHost, logger: this.logger });
    if (tree.hostCount === 0) {
      throw new Error(`UFM reported no host cabled to a switch by an active link (${systems.length} systems, ${links.length} links)`);
    }
    for (const p of tree.problems) this.logger.v(2).info('UFM fabric link joins no group', { fabric, problem: p.message });
    this.unmapped.report(fabric, tree.leafHosts, mapHost, 'UFM hosts that match no Node are left out');
    if (tree.snapshot.length === 0) {
      throw new Error(`none of the ${tree.hostCount} hosts UFM reports is a Kubernetes Node; check config.hostMapping`);
    }
    return tree.snapshot;
  }
}

/** Builds UFM discoverers; `tuning` overrides transport limits (tests pass a CA and short deadlines). */
export function createUfmDiscovererFactory(tuning: UfmTuning = {}): DiscovererFactory {
  return async (entry, opts) => {
    const logger = opts.logger.with({ source: UFM_SOURCE });
    const unknown = unknownKeys(entry.config, CONFIG_KEYS, { ignoreCase: false });
    warnUnknownKeys(logger, 'ufm config', unknown, CONFIG_KEYS);
    const config = parseUfmConfig(entry, unknown);
    const endpoints: UfmEndpoint[] = [];
    const errors: (string | undefined)[] = [];
    for (const fabric of config.fabrics) {
      const skipVerify = fabric.skipVerifyRaw;
      if (skipVerify !== undefined && skipVerify !== null && typeof skipVerify !== 'boolean') {
        // Go reads anything but a YAML boolean as false; so do we, verification stays on.
        logger.warn('config.insecureSkipVerify is not a YAML boolean (true/false) and counts as false: TLS certificates are verified', {
          insecureSkipVerify: JSON.stringify(skipVerify),
        });
      }
      if (fabric.insecureSkipVerify) {
        logger.warn('WARNING: TLS certificate verification is disabled which is insecure. This should not be used in production environments');
      }
      const ref = fabric.secretRef;
      let credentials: Credentials = NO_CREDENTIALS;
      let credentialsError: string | undefined;
      // Bodies served without UFM (readResourceBody) need no credentials: the Secret is never read.
      if (ref && !tuning.readResourceBody) {
        try {
          credentials = await readCredentials(opts.secrets, ref, undefined, fabric.auth);
        } catch (err) {
          credentialsError = errorMessage(err);
          logger.error('Failed to get credentials from secret', { err });
        }
      } else if (!ref && !tuning.readResourceBody) {
        logger.warn('UFM authentication credentials are not configured');
      }
      endpoints.push(new UfmEndpoint(fabric, credentials, tuning));
      errors.push(credentialsError);
    }
    logger.info('UFM discoverer initialized', config.mode === 'fabric' ? { mode: config.mode, fabrics: config.fabrics.map((f) => f.name).join(',') } : { endpoint: config.fabrics[0]!.endpoint });
    return new UfmDiscoverer(entry, opts, config, endpoints, errors, tuning);
  };
}

export const ufmDiscovererFactory: DiscovererFactory = createUfmDiscovererFactory();
