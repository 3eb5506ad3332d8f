// The UFM discoverer (`source: ufm`, 04-discovery §5): polls NVIDIA UFM for
// its port list every `interval` and emits leaf/spine HyperNodes. Mirrors
// pkg/controllers/hypernode/discovery/ufm/ufm.go, with the improvements of
// 00-overview §4 items 3 and 10: a failed fetch, a malformed body or an
// answer without Computer ports yields no snapshot (nothing is deleted) and is
// retried with backoff before the next tick; credentials are re-read from the
// Secret before every run; every request has a deadline; a bad endpoint is a
// construction error instead of a crash.

import * as http from 'node:http';
import type { Logger } from '../../../log.ts';
import { Channel } from '../../../util/channel.ts';
import type { Discoverer, DiscovererFactory, DiscovererOptions, DiscoveryEntry, Snapshot } from '../../api/interface.ts';
import { unknownKeys, warnUnknownKeys } from '../../config/unknown-keys.ts';
import { basicAuthorization, hasCredentials, NO_CREDENTIALS, readCredentials, type Credentials, type SecretRef } from './credentials.ts';
import { BodyTooLargeError, UfmHttpClient, type HttpClientOptions } from './http-client.ts';
import { decodePorts, portsUrl, type UfmPort } from './ports.ts';
import { buildSnapshot, UFM_SOURCE } from './topology.ts';
import { errorMessage, wrapError } from '../../../util/error-message.ts';
import { CLEARTEXT_CREDENTIALS } from '../../event-reasons.ts';

/** Snapshots the manager has not taken yet (Go: a channel of 10). */
export const OUTPUT_BUFFER = 10;
/** First retry after a failed run; doubles per failure up to RETRY_MAX_MS, never past the next tick. */
export const RETRY_BASE_MS = 5_000;
export const RETRY_MAX_MS = 5 * 60_000;
/** Shortest poll period honoured: `interval: 1ms` would otherwise poll UFM back to back. */
export const MIN_INTERVAL_MS = 1_000;

/**
 * Where the body of the ports resource comes from when it is not fetched from
 * UFM (the offline `render` serves a capture from disk). Rejects with a
 * message saying what is missing.
 */
export type PortsBodyReader = (endpoint: string, signal: AbortSignal) => Promise<string>;

/** Knobs tests (and embedders) may set; production uses the defaults. */
export interface UfmTuning extends Partial<Omit<HttpClientOptions, 'insecureSkipVerify'>> {
  retryBaseMs?: number;
  /** Replaces the HTTP request: no Secret is read and UFM is never contacted. */
  readPortsBody?: PortsBodyReader;
}

/** The keys of the ufm source's `config`; anything else is a typo worth naming. */
const CONFIG_KEYS = ['endpoint', 'insecureSkipVerify'];

class UfmDiscoverer implements Discoverer {
  private readonly logger: Logger;
  private readonly client: UfmHttpClient;
  private readonly stopping = new AbortController();
  private readonly retryBaseMs: number;
  private readonly intervalMs: number;
  private readonly readPortsBody: PortsBodyReader | undefined;

  constructor(
    entry: DiscoveryEntry,
    private readonly opts: DiscovererOptions,
    private readonly endpoint: string,
    private readonly secretRef: SecretRef | undefined,
    private credentials: Credentials,
    /** Why reading the Secret at construction failed, for start()'s error. */
    private readonly credentialsError: string | undefined,
    insecureSkipVerify: boolean,
    tuning: UfmTuning,
  ) {
    this.logger = opts.logger.with({ source: UFM_SOURCE });
    this.client = new UfmHttpClient({ ...tuning, insecureSkipVerify });
    this.retryBaseMs = tuning.retryBaseMs ?? RETRY_BASE_MS;
    this.readPortsBody = tuning.readPortsBody;
    this.intervalMs = Math.max(entry.intervalMs, MIN_INTERVAL_MS);
    if (this.intervalMs !== entry.intervalMs) {
      this.logger.warn('UFM poll interval too short, using the minimum', { interval: `${entry.intervalMs}ms`, minimum: `${MIN_INTERVAL_MS}ms` });
    }
  }

  resultSynced(): void {}

  async start(): Promise<Channel<Snapshot>> {
    if (this.endpoint === '') throw new Error('UFM endpoint is not configured');
    if (!this.readPortsBody && !hasCredentials(this.credentials)) {
      throw new Error(`UFM authentication credentials are not configured${this.credentialsError ? `: ${this.credentialsError}` : ''}`);
    }
    const url = portsUrl(this.endpoint);
    if (!this.readPortsBody && url.startsWith('http://')) {
      // Go sends the password in cleartext without a word; it still works, but say so loudly.
      this.opts.problems.warning(
        CLEARTEXT_CREDENTIALS.reason,
        `WARNING: the UFM endpoint ${url} is plain http, so the UFM username and password are sent unencrypted on every poll; use an https:// endpoint`,
      );
    }
    this.logger.info('Starting UFM network topology discovery', { endpoint: this.endpoint, interval: `${this.intervalMs}ms` });
    const out = new Channel<Snapshot>(OUTPUT_BUFFER);
    void this.loop(out);
    return out;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
  }

  /** Discover now, then on a fixed-rate schedule; failures retry sooner with backoff. */
  private async loop(out: Channel<Snapshot>): Promise<void> {
    const { clock } = this.opts;
    const interval = this.intervalMs;
    const signal = this.stopping.signal;
    const origin = clock.now();
    let failures = 0;
    try {
      while (!signal.aborted) {
        const ok = await this.discoverOnce(out);
        failures = ok ? 0 : failures + 1;
        const now = clock.now();
        // Ticks missed while a run was in flight are coalesced into the next one.
        const nextTick = origin + (Math.floor((now - origin) / interval) + 1) * interval;
        const retryAt = now + Math.min(this.retryBaseMs * 2 ** (failures - 1), RETRY_MAX_MS);
        await clock.sleep((ok ? nextTick : Math.min(nextTick, retryAt)) - now, signal);
      }
    } catch {
      // the sleep was aborted: stopped
    } finally {
      this.logger.info('UFM network topology discovery stopped, closing output channel');
      out.close();
    }
  }

  /** One run; true when a snapshot was produced. */
  private async discoverOnce(out: Channel<Snapshot>): Promise<boolean> {
    const signal = this.stopping.signal;
    if (this.secretRef && !this.readPortsBody) {
      try {
        this.credentials = await readCredentials(this.opts.secrets, this.secretRef, signal);
      } catch (err) {
        if (!signal.aborted) this.opts.problems.failed('Failed to get credentials from secret', err);
        return false;
      }
    }
    let ports: UfmPort[];
    try {
      ports = await this.fetchPorts();
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
    this.opts.problems.recovered();
    const sent = out.trySend(snapshot);
    if (sent === 'sent') this.logger.v(3).info('Sent network topology data', { count: snapshot.length });
    else if (sent === 'full') this.logger.warn('Failed to send network topology data, channel might be full');
    return true;
  }

  private async fetchPorts(): Promise<UfmPort[]> {
    const body = this.readPortsBody ? await this.readPortsBody(this.endpoint, this.stopping.signal) : await this.requestPortsBody();
    try {
      return decodePorts(body);
    } catch (err) {
      throw wrapError('failed to decode response', err);
    }
  }

  private async requestPortsBody(): Promise<string> {
    const url = portsUrl(this.endpoint);
    try {
      new URL(url);
    } catch (err) {
      throw wrapError('failed to create request', err);
    }
    this.logger.v(4).info('Sending request to UFM server', { url });
    let res;
    try {
      res = await this.client.get(url, basicAuthorization(this.credentials), this.stopping.signal);
    } catch (err) {
      if (err instanceof BodyTooLargeError) throw new Error(`failed to read response: ${err.message}`, { cause: err });
      throw wrapError('failed to send request', err);
    }
    if (res.status !== 200) {
      throw new Error(`unexpected status code: ${res.status} ${res.statusText || http.STATUS_CODES[res.status] || ''}`.trimEnd());
    }
    return res.body;
  }
}

/** Builds UFM discoverers; `tuning` overrides transport limits (tests pass a CA and short deadlines). */
export function createUfmDiscovererFactory(tuning: UfmTuning = {}): DiscovererFactory {
  return async (entry, opts) => {
    const logger = opts.logger.with({ source: UFM_SOURCE });
    const unknown = unknownKeys(entry.config, CONFIG_KEYS, { ignoreCase: false });
    warnUnknownKeys(logger, 'ufm config', unknown, CONFIG_KEYS);
    const endpoint = entry.config.endpoint;
    if (typeof endpoint !== 'string') {
      const typo = unknown.length > 0 ? ` (the config has ${unknown.map((k) => JSON.stringify(k)).join(', ')}; misspelled?)` : '';
      throw new Error(
        `ufm source: config.endpoint must be a string with the UFM address (e.g. "https://ufm.example.com"), got ${endpoint === undefined ? 'nothing' : JSON.stringify(endpoint)}${typo}`,
      );
    }
    const skipVerify = entry.config.insecureSkipVerify;
    if (skipVerify !== undefined && skipVerify !== null && typeof skipVerify !== 'boolean') {
      // Go reads anything but a YAML boolean as false; so do we, verification stays on.
      logger.warn('config.insecureSkipVerify is not a YAML boolean (true/false) and counts as false: TLS certificates are verified', {
        insecureSkipVerify: JSON.stringify(skipVerify),
      });
    }
    const insecureSkipVerify = skipVerify === true;
    if (insecureSkipVerify) {
      logger.warn('WARNING: TLS certificate verification is disabled which is insecure. This should not be used in production environments');
    }
    const ref = entry.credentials?.secretRef;
    let credentials = NO_CREDENTIALS;
    let credentialsError: string | undefined;
    // A body served without UFM (readPortsBody) needs no credentials: the Secret is never read.
    if (ref && !tuning.readPortsBody) {
      try {
        credentials = await readCredentials(opts.secrets, ref);
      } catch (err) {
        credentialsError = errorMessage(err);
        logger.error('Failed to get credentials from secret', { err });
      }
    } else if (!ref && !tuning.readPortsBody) {
      logger.warn('UFM authentication credentials are not configured');
    }
    logger.info('UFM discoverer initialized', { endpoint });
    return new UfmDiscoverer(entry, opts, endpoint, ref, credentials, credentialsError, insecureSkipVerify, tuning);
  };
}

export const ufmDiscovererFactory: DiscovererFactory = createUfmDiscovererFactory();
