// Delegated authentication and authorisation of requests to our own HTTP
// endpoints: the caller's bearer token is checked with a TokenReview
// (authentication.k8s.io/v1) and the user it names is checked with a
// SubjectAccessReview (authorization.k8s.io/v1) for a non-resource URL and
// verb, as controller-runtime's secure metrics serving does
// (pkg/metrics/filters/filters.go over k8s.io/apiserver's delegating
// authenticator and authorizer). Answers are kept for a short while per token,
// keyed by the token's SHA-256 so the cache never holds a token; a review that
// fails (API server unreachable, the review refused) is never cached and
// yields "unavailable", which callers must treat as a refusal: this fails
// closed.

import { createHash } from 'node:crypto';
import type { Clock } from './clock.ts';
import { ExpiringCache } from './expiring-cache.ts';
import { resourceClient, type ResourceClient } from './resource.ts';
import type { RestClient } from './rest.ts';
import type { KubeObject } from './types.ts';
import { errorMessage } from '../util/error-message.ts';

/** controller-runtime's delegating authenticator and authorizer keep answers this long. */
export const ACCESS_REVIEW_CACHE_TTL_MS = 60_000;
/** Distinct tokens (and token × path × verb) remembered at most; the oldest go first. */
const ACCESS_REVIEW_CACHE_ENTRIES = 1_024;

interface ReviewedUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export type AccessDecision =
  | { readonly kind: 'allowed'; readonly user: string }
  /** The TokenReview did not authenticate the token. */
  | { readonly kind: 'unauthenticated' }
  /** Authenticated, but the SubjectAccessReview did not allow the request. */
  | { readonly kind: 'denied'; readonly user: string; readonly reason: string }
  /** A review could not be made: never an allowance. */
  | { readonly kind: 'unavailable'; readonly error: string };

interface TokenReview extends KubeObject {
  spec: { token: string };
  status?: {
    authenticated?: boolean;
    user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
    error?: string;
  };
}

interface SubjectAccessReview extends KubeObject {
  spec: {
    user: string;
    uid?: string;
    groups?: readonly string[];
    extra?: Readonly<Record<string, readonly string[]>>;
    nonResourceAttributes: { path: string; verb: string };
  };
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

type Verdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

export interface AccessReviewerOptions {
  /** A client whose credentials may create tokenreviews and subjectaccessreviews. */
  readonly rest: RestClient;
  readonly clock: Clock;
  readonly ttlMs?: number;
  readonly maxEntries?: number;
}

export class AccessReviewer {
  private readonly tokenReviews: ResourceClient<TokenReview>;
  private readonly accessReviews: ResourceClient<SubjectAccessReview>;
  private readonly users: ExpiringCache<ReviewedUser | undefined>;
  private readonly verdicts: ExpiringCache<Verdict>;

  constructor(opts: AccessReviewerOptions) {
    this.tokenReviews = resourceClient(opts.rest, {
      group: 'authentication.k8s.io',
      version: 'v1',
      resource: 'tokenreviews',
      namespaced: false,
    });
    this.accessReviews = resourceClient(opts.rest, {
      group: 'authorization.k8s.io',
      version: 'v1',
      resource: 'subjectaccessreviews',
      namespaced: false,
    });
    const ttl = opts.ttlMs ?? ACCESS_REVIEW_CACHE_TTL_MS;
    const size = opts.maxEntries ?? ACCESS_REVIEW_CACHE_ENTRIES;
    this.users = new ExpiringCache(opts.clock, ttl, size);
    this.verdicts = new ExpiringCache(opts.clock, ttl, size);
  }

  /** Whether the bearer of `token` may `verb` the non-resource URL `path`. Never throws. */
  async review(token: string, path: string, verb: string): Promise<AccessDecision> {
    const key = createHash('sha256').update(token).digest('hex');
    try {
      const user = await this.users.get(key, () => this.authenticate(token));
      if (!user) return { kind: 'unauthenticated' };
      const verdict = await this.verdicts.get(`${key} ${verb} ${path}`, () => this.authorize(user, path, verb));
      return verdict.allowed
        ? { kind: 'allowed', user: user.username }
        : { kind: 'denied', user: user.username, reason: verdict.reason };
    } catch (err) {
      // The error names the request (method and URL) and the server's Status message, never a body we sent.
      return { kind: 'unavailable', error: errorMessage(err) };
    }
  }

  private async authenticate(token: string): Promise<ReviewedUser | undefined> {
    const answer = await this.tokenReviews.create({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: {},
      spec: { token },
    } as TokenReview);
    const status = answer.status;
    if (status?.authenticated !== true || !status.user?.username) return undefined;
    const { username, uid, groups, extra } = status.user;
    return { username, ...(uid ? { uid } : {}), ...(groups ? { groups } : {}), ...(extra ? { extra } : {}) };
  }

  private async authorize(user: ReviewedUser, path: string, verb: string): Promise<Verdict> {
    // authenticate() kept only the uid, groups and extra the TokenReview set, so they pass on as they are.
    const { username, ...identity } = user;
    const answer = await this.accessReviews.create({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: { user: username, ...identity, nonResourceAttributes: { path, verb } },
    } as SubjectAccessReview);
    const status = answer.status;
    if (status?.allowed === true && status.denied !== true) return { allowed: true };
    return { allowed: false, reason: status?.reason || status?.evaluationError || 'no RBAC rule allows it' };
  }
}
