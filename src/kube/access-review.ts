// Delegated authentication and authorisation of requests to our own HTTP
// endpoints: the caller's bearer token is checked with a TokenReview
// (authentication.k8s.io/v1) for the audiences the endpoints accept, and the
// user it names is checked with a SubjectAccessReview (authorization.k8s.io/v1)
// for a non-resource URL and verb, as controller-runtime's secure metrics
// serving does (pkg/metrics/filters/filters.go over k8s.io/apiserver's
// delegating authenticator and authorizer). A token is accepted only when the
// API server says it was issued for one of those audiences: a token meant for
// the API server itself is refused, so no client need send one here.
//
// Answers are kept per token, keyed by the token's SHA-256 so no cache holds a
// token: an accepted token for a minute, a refused one for ten seconds. A
// review that fails (API server unreachable, the review refused) is never
// cached and yields "unavailable", which callers must treat as a refusal: this
// fails closed. Tokens the API server has not vouched for in the last hour
// cost a TokenReview each, so they are reviewed only a few at a time and a few
// a second; past that a request is refused at once ("throttled"), and a flood
// of made-up tokens reaches the API server at that rate, while tokens it
// vouched for lately are reviewed again whenever their answer expires.

import { createHash } from 'node:crypto';
import type { Clock } from './clock.ts';
import { ExpiringCache } from './expiring-cache.ts';
import { TokenBucket } from './token-bucket.ts';
import { Slots } from '../util/slots.ts';
import { resourceClient, type ResourceClient } from './resource.ts';
import type { RestClient } from './rest.ts';
import type { KubeObject } from './types.ts';
import { errorMessage } from '../util/error-message.ts';

/** controller-runtime's delegating authenticator and authorizer keep answers this long. */
export const ACCESS_REVIEW_CACHE_TTL_MS = 60_000;
/** A token the API server refused is refused without asking again for this long. */
export const REFUSED_TOKEN_CACHE_TTL_MS = 10_000;
/** A token the API server accepted within this long is reviewed again outside the budget below. */
export const VOUCHED_TOKEN_MEMORY_MS = 3_600_000;
/** TokenReviews of unknown tokens in flight at once, at most. */
export const UNKNOWN_TOKEN_REVIEWS_IN_FLIGHT = 4;
/** TokenReviews of unknown tokens a second, at most, after a burst of UNKNOWN_TOKEN_REVIEW_BURST. */
export const UNKNOWN_TOKEN_REVIEWS_PER_SECOND = 5;
export const UNKNOWN_TOKEN_REVIEW_BURST = 10;
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
  /** Too many unknown tokens are being reviewed: refused without asking the API server. */
  | { readonly kind: 'throttled' }
  /** A review could not be made: never an allowance. */
  | { readonly kind: 'unavailable'; readonly error: string };

interface TokenReview extends KubeObject {
  spec: { token: string; audiences: readonly string[] };
  status?: {
    authenticated?: boolean;
    /** Those of the asked audiences the token was issued for; empty from a server that ignored them. */
    audiences?: string[];
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
  /** A token must have been issued for one of these (TokenReview spec.audiences). */
  readonly audiences: readonly string[];
  readonly ttlMs?: number;
  readonly maxEntries?: number;
}

/** What authentication of a token came to; `throttled` when it was not even asked. */
type Authenticated = ReviewedUser | undefined | 'throttled';

export class AccessReviewer {
  private readonly tokenReviews: ResourceClient<TokenReview>;
  private readonly accessReviews: ResourceClient<SubjectAccessReview>;
  private readonly audiences: readonly string[];
  /** Accepted tokens' users (a refusal is dropped from here once resolved, and kept in `refused`). */
  private readonly users: ExpiringCache<ReviewedUser | undefined>;
  private readonly refused: ExpiringCache<true>;
  private readonly vouched: ExpiringCache<true>;
  private readonly verdicts: ExpiringCache<Verdict>;
  private readonly unknownInFlight = new Slots(UNKNOWN_TOKEN_REVIEWS_IN_FLIGHT);
  private readonly unknownRate: TokenBucket;

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
    this.audiences = [...opts.audiences];
    const ttl = opts.ttlMs ?? ACCESS_REVIEW_CACHE_TTL_MS;
    const size = opts.maxEntries ?? ACCESS_REVIEW_CACHE_ENTRIES;
    this.users = new ExpiringCache(opts.clock, ttl, size, (user) => user !== undefined);
    this.refused = new ExpiringCache(opts.clock, REFUSED_TOKEN_CACHE_TTL_MS, size);
    this.vouched = new ExpiringCache(opts.clock, VOUCHED_TOKEN_MEMORY_MS, size);
    this.verdicts = new ExpiringCache(opts.clock, ttl, size);
    this.unknownRate = new TokenBucket(UNKNOWN_TOKEN_REVIEWS_PER_SECOND, UNKNOWN_TOKEN_REVIEW_BURST, opts.clock);
  }

  /** Whether the bearer of `token` may `verb` the non-resource URL `path`. Never throws. */
  async review(token: string, path: string, verb: string): Promise<AccessDecision> {
    const key = createHash('sha256').update(token).digest('hex');
    try {
      const user = await this.authenticated(key, token);
      if (user === 'throttled') return { kind: 'throttled' };
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

  /** The token's user from the caches, or from a TokenReview if the budget for unknown tokens allows one now. */
  private authenticated(key: string, token: string): Promise<Authenticated> {
    if (this.refused.peek(key) !== undefined) return Promise.resolve(undefined);
    const known = this.users.peek(key); // answered, or being reviewed for an earlier request
    if (known !== undefined) return known;
    const vouched = this.vouched.peek(key) !== undefined;
    if (!vouched && !this.startUnknownReview()) return Promise.resolve('throttled');
    return this.users.get(key, async () => {
      try {
        const user = await this.authenticate(token);
        (user ? this.vouched : this.refused).set(key, true);
        return user;
      } finally {
        if (!vouched) this.unknownInFlight.release();
      }
    });
  }

  /** Takes a slot and a token of the unknown tokens' budget, both or neither. */
  private startUnknownReview(): boolean {
    if (!this.unknownInFlight.tryAcquire()) return false;
    if (this.unknownRate.tryTake()) return true;
    this.unknownInFlight.release();
    return false;
  }

  private async authenticate(token: string): Promise<ReviewedUser | undefined> {
    const answer = await this.tokenReviews.create({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: {},
      spec: { token, audiences: this.audiences },
    } as TokenReview);
    const status = answer.status;
    if (status?.authenticated !== true || !status.user?.username) return undefined;
    // A server that ignored the audiences answers with none: it vouched for the token only as its own.
    if (!status.audiences?.some((a) => this.audiences.includes(a))) return undefined;
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
