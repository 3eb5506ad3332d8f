// One UFM endpoint as the discoverer talks to it: its credentials (re-read
// from the Secret before every run), the HTTP client trusting the Secret's
// private CA when it has one, and GET of a resource under the prefix of the
// authentication scheme (/ufmRest for basic auth, /ufmRestV3 for tokens).
// Error texts for the basic scheme are Go's (pkg/controllers/hypernode/discovery/ufm/ufm.go).

import * as http from 'node:http';
import type { SecretClient } from '../../model/contracts.ts';
import { Buffer } from 'node:buffer';
import {
  basicAuthorization,
  hasCredentials,
  readCredentials,
  type AuthScheme,
  type Credentials,
} from '../remote/credentials.ts';
import { HttpGetClient, type HttpClientOptions } from '../remote/http-client.ts';
import type { HttpDestination } from '../remote/secret-grant.ts';
import { BodyTooLargeError } from '../../../util/body-too-large-error.ts';
import { endpointBase, type FabricEndpoint } from './ufm-config.ts';
import { wrapError } from '../../../util/error-message.ts';

/** The resources a discoverer reads. */
export type UfmResource = 'ports' | 'links' | 'systems';

/**
 * Where a resource's body comes from when it is not fetched from UFM (the
 * offline `render` serves captures from disk). Rejects with a message saying
 * what is missing.
 */
export type ResourceBodyReader = (endpoint: string, resource: UfmResource, signal: AbortSignal) => Promise<string>;

const PREFIX: Record<AuthScheme, string> = { basic: '/ufmRest', token: '/ufmRestV3' };
/** What a Secret without `token` lacks, said after its name. */
export const UFM_TOKEN_HINT = 'auth: token needs the UFM access token under the key "token"';

/**
 * The Authorization header: basic credentials, or the access token after the word Basic, as UFM's /ufmRestV3 takes it.
 */
function authorizationHeader(c: Credentials, auth: AuthScheme): string {
  return auth === 'token' ? `Basic ${(c.token ?? Buffer.alloc(0)).toString('latin1')}` : basicAuthorization(c);
}

/** Where a fabric's credentials go: its endpoint, with its TLS verification setting (the Secret must allow both). */
export function ufmDestination(fabric: FabricEndpoint): HttpDestination {
  return { url: endpointBase(fabric.endpoint), insecureSkipVerify: fabric.insecureSkipVerify };
}

/** `endpoint` → the URL of `path` (e.g. `/resources/ports`) under the scheme's prefix. */
export function resourceUrl(endpoint: string, auth: AuthScheme, path: string): string {
  return endpointBase(endpoint) + PREFIX[auth] + path;
}

export class UfmEndpoint {
  private client: HttpGetClient;
  private clientCa: string | undefined;

  constructor(
    readonly fabric: FabricEndpoint,
    private credentials: Credentials,
    private readonly tuning: Partial<Omit<HttpClientOptions, 'insecureSkipVerify'>>,
  ) {
    this.clientCa = credentials.ca;
    this.client = this.newClient();
  }

  hasCredentials(): boolean {
    return hasCredentials(this.credentials, this.fabric.auth);
  }

  /** Re-reads the Secret; a changed ca.crt gets a new client. Throws with Go's secret error texts. */
  async refresh(secrets: SecretClient, signal: AbortSignal): Promise<void> {
    if (!this.fabric.secretRef) return;
    this.credentials = await readCredentials(
      secrets,
      this.fabric.secretRef,
      ufmDestination(this.fabric),
      signal,
      this.fabric.auth,
      UFM_TOKEN_HINT,
    );
    if (this.credentials.ca !== this.clientCa) {
      this.clientCa = this.credentials.ca;
      this.client = this.newClient();
    }
  }

  /** GET of `path` (e.g. `/resources/ports`); the body of a 200, else an error naming what failed. */
  async get(path: string, signal: AbortSignal): Promise<string> {
    const url = resourceUrl(this.fabric.endpoint, this.fabric.auth, path);
    try {
      new URL(url);
    } catch (err) {
      throw wrapError('failed to create request', err);
    }
    let res;
    try {
      res = await this.client.get(url, authorizationHeader(this.credentials, this.fabric.auth), signal);
    } catch (err) {
      if (err instanceof BodyTooLargeError) throw wrapError('failed to read response', err);
      throw wrapError('failed to send request', err);
    }
    if (res.status === 401 && this.fabric.auth === 'token') {
      const where = this.fabric.secretRef
        ? ` in secret ${this.fabric.secretRef.namespace}/${this.fabric.secretRef.name}`
        : '';
      throw new Error(
        `unexpected status code: 401 Unauthorized: UFM refused the access token (revoked or expired); create a new token in UFM and store it under the key "token"${where}`,
      );
    }
    if (res.status !== 200) {
      throw new Error(
        // The standard phrase, not UFM's: a reason phrase is whatever the server chose to say.
        `unexpected status code: ${res.status} ${http.STATUS_CODES[res.status] ?? ''}`.trimEnd(),
      );
    }
    return res.body;
  }

  private newClient(): HttpGetClient {
    // The Secret's CA replaces every other root for this endpoint: trust is pinned to the private CA.
    const ca = this.credentials.ca ?? this.tuning.ca;
    return new HttpGetClient({
      ...this.tuning,
      ...(ca === undefined ? {} : { ca }),
      insecureSkipVerify: this.fabric.insecureSkipVerify,
    });
  }
}
