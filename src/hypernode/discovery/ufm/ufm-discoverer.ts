// The ufm source (`source: ufm`): one poll loop over NVIDIA UFM (the polling
// base) running one of two strategies (ufm-strategy.ts), legacy mode's
// leaf-hn/spine-hn as Volcano writes them or fabric mode's whole tree per
// fabric. Mirrors pkg/controllers/hypernode/discovery/ufm/ufm.go, with the
// fixes of docs/differences-from-go.md items 3 and 10: a failed or empty answer
// publishes nothing, credentials are re-read every run, every request has a
// deadline, and a bad endpoint is refused at construction instead of crashing.

import { DEFAULT_INPUT_POLICY } from '../../model/input-policy.ts';
import { UrlAddressPolicy } from '../remote/allowed-addresses.ts';
import { quoteInput } from '../../../util/input-fragment.ts';
import type { DiscovererFactory, DiscovererOptions, DiscoveryEntry, Snapshot } from '../../model/contracts.ts';
import { unknownKeys, warnUnknownKeys } from '../../config/unknown-keys.ts';
import { UnmappedHostReport } from '../fabric/unmapped-hosts.ts';
import type { PollRun } from '../poll-loop.ts';
import { PollingDiscoverer } from '../polling-discoverer.ts';
import { NO_CREDENTIALS, readCredentials, type Credentials } from '../remote/credentials.ts';
import type { HttpClientOptions } from '../remote/http-client.ts';
import { PORTS_RESOURCE_PATH } from './legacy-ports.ts';
import { CONFIG_KEYS, endpointBase, parseUfmConfig, type UfmConfig } from './ufm-config.ts';
import { UFM_SOURCE } from '../../model/hypernode-labels.ts';
import {
  resourceUrl,
  UFM_TOKEN_HINT,
  ufmDestination,
  UfmEndpoint,
  type ResourceBodyReader,
  type UfmResource,
} from './ufm-endpoint.ts';
import { UfmFabricMode } from './ufm-fabric-mode.ts';
import { UfmLegacyMode } from './ufm-legacy-mode.ts';
import type { UfmStrategy } from './ufm-strategy.ts';

export type { ResourceBodyReader, UfmResource } from './ufm-endpoint.ts';
import { errorMessage } from '../../../util/error-message.ts';
import { redactUrl } from '../../../util/redact-url.ts';
import { CLEARTEXT_CREDENTIALS } from '../../event-reasons.ts';
import type { SlicedWork } from '../../../util/sliced-work.ts';

/** Knobs tests (and embedders) may set; production uses the defaults. */
export interface UfmTuning extends Partial<Omit<HttpClientOptions, 'insecureSkipVerify'>> {
  retryBaseMs?: number;
  /** Replaces the HTTP requests: no Secret is read and UFM is never contacted. */
  readResourceBody?: ResourceBodyReader;
}

class UfmDiscoverer extends PollingDiscoverer {
  private readonly reader: ResourceBodyReader | undefined;
  private readonly strategy: UfmStrategy;

  constructor(
    entry: DiscoveryEntry,
    opts: DiscovererOptions,
    private readonly config: UfmConfig,
    private readonly endpoints: readonly UfmEndpoint[],
    /** Why reading each endpoint's Secret at construction failed, for start()'s error. */
    private readonly credentialsErrors: readonly (string | undefined)[],
    tuning: UfmTuning,
  ) {
    super(entry, opts, {
      source: UFM_SOURCE,
      title: 'UFM',
      stoppedMessage: 'UFM network topology discovery stopped, closing output channel',
      retryBaseMs: tuning.retryBaseMs,
      nvlink: config.nvlink,
    });
    this.reader = tuning.readResourceBody;
    const context = {
      opts,
      logger: this.logger,
      config,
      endpoints,
      signal: this.stopping.signal,
      offline: this.reader !== undefined,
      unmapped: new UnmappedHostReport(UFM_SOURCE, opts.problems, opts.metrics),
      nvlink: this.nvlink,
      body: (ep: UfmEndpoint, resource: UfmResource, path: string) => this.body(ep, resource, path),
    };
    this.strategy = config.mode === 'fabric' ? new UfmFabricMode(context) : new UfmLegacyMode(context);
  }

  protected announce(): void {
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
          `WARNING: the UFM endpoint ${redactUrl(url)} is plain http, so ${what} sent unencrypted on every poll; use an https:// endpoint`,
        );
      }
    }
    if (fabricMode) {
      for (const ep of this.endpoints)
        this.logger.info('Starting UFM fabric discovery', {
          fabric: ep.fabric.name,
          endpoint: redactUrl(endpointBase(ep.fabric.endpoint)),
          auth: ep.fabric.auth,
          interval: `${this.intervalMs}ms`,
        });
    } else {
      this.logger.info('Starting UFM network topology discovery', {
        endpoint: redactUrl(endpointBase(this.endpoints[0]!.fabric.endpoint)),
        interval: `${this.intervalMs}ms`,
      });
    }
  }

  protected runOnce(): Promise<PollRun> {
    return this.strategy.run();
  }

  protected override rebuild(): SlicedWork<Snapshot | undefined> {
    return this.strategy.rebuild();
  }

  private async body(ep: UfmEndpoint, resource: UfmResource, path: string): Promise<string> {
    if (this.reader) return this.reader(ep.fabric.endpoint, resource, this.stopping.signal);
    this.logger
      .v(4)
      .info('Sending request to UFM server', { url: redactUrl(resourceUrl(ep.fabric.endpoint, ep.fabric.auth, path)) });
    return ep.get(path, this.stopping.signal);
  }
}

/** Builds UFM discoverers; `tuning` overrides transport limits (tests pass a CA and short deadlines). */
export function createUfmDiscovererFactory(tuning: UfmTuning = {}): DiscovererFactory {
  return async (entry, opts) => {
    const logger = opts.logger.with({ source: UFM_SOURCE });
    const unknown = unknownKeys(entry.config, CONFIG_KEYS, { ignoreCase: false });
    warnUnknownKeys(logger, 'ufm config', unknown, CONFIG_KEYS);
    const policy = opts.inputPolicy ?? DEFAULT_INPUT_POLICY;
    const config = parseUfmConfig(entry, unknown, policy);
    const addresses = new UrlAddressPolicy(policy.urlCidrs);
    const endpoints: UfmEndpoint[] = [];
    const errors: (string | undefined)[] = [];
    for (const fabric of config.fabrics) {
      const skipVerify = fabric.skipVerifyRaw;
      if (skipVerify !== undefined && skipVerify !== null && typeof skipVerify !== 'boolean') {
        // Go reads anything but a YAML boolean as false; so do we, verification stays on.
        logger.warn(
          'config.insecureSkipVerify is not a YAML boolean (true/false) and counts as false: TLS certificates are verified',
          {
            insecureSkipVerify: quoteInput(skipVerify),
          },
        );
      }
      if (fabric.insecureSkipVerify) {
        logger.warn(
          'WARNING: TLS certificate verification is disabled which is insecure. This should not be used in production environments',
        );
      }
      const ref = fabric.secretRef;
      let credentials: Credentials = NO_CREDENTIALS;
      let credentialsError: string | undefined;
      // Bodies served without UFM (readResourceBody) need no credentials: the Secret is never read.
      if (ref && !tuning.readResourceBody) {
        try {
          credentials = await readCredentials(
            opts.secrets,
            ref,
            ufmDestination(fabric),
            undefined,
            fabric.auth,
            UFM_TOKEN_HINT,
          );
        } catch (err) {
          credentialsError = errorMessage(err);
          logger.error('Failed to get credentials from secret', { err });
        }
      } else if (!ref && !tuning.readResourceBody) {
        logger.warn('UFM authentication credentials are not configured');
      }
      endpoints.push(new UfmEndpoint(fabric, credentials, { addresses, ...tuning }));
      errors.push(credentialsError);
    }
    logger.info(
      'UFM discoverer initialized',
      config.mode === 'fabric'
        ? { mode: config.mode, fabrics: config.fabrics.map((f) => f.name).join(',') }
        : { endpoint: redactUrl(endpointBase(config.fabrics[0]!.endpoint)) },
    );
    return new UfmDiscoverer(entry, opts, config, endpoints, errors, tuning);
  };
}

export const ufmDiscovererFactory: DiscovererFactory = createUfmDiscovererFactory();
