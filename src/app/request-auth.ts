// The gate in front of the protected endpoints of the metrics listener
// (/debug/topology, and /metrics with --secure-metrics): the request's bearer
// token is reviewed by the API server (src/kube/access-review.ts) for the
// request's path and its method as the verb, as controller-runtime's
// filters.WithAuthenticationAndAuthorization does. No token or a token the
// TokenReview rejects (one not issued for our audience among them) → 401 that
// says how to get the right token; a user the SubjectAccessReview does not
// allow → 403; too many unknown tokens under review → 429 at once; no answer
// from the API server → 503 (never served). Neither the token nor a review
// body is ever logged: denials are logged with the user and path, and the 429s
// of a flood as one line a minute with their count.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessDecision } from '../kube/access-review.ts';
import type { Clock } from '../kube/clock.ts';
import type { Logger } from '../log.ts';
import { requestPath, sendText } from './probes.ts';

/** Seconds a client is asked to wait after a 503 (the API server was unreachable). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
/** Seconds a client is asked to wait after a 429 (too many unknown tokens under review). */
export const THROTTLED_RETRY_AFTER_SECONDS = 1;
/** During a flood of unknown tokens, the 429s are logged as one line this often. */
const THROTTLED_REPORT_INTERVAL_MS = 60_000;

/** Reviews one token for one path and verb (an AccessReviewer in production). */
export interface AccessReview {
  review(token: string, path: string, verb: string): Promise<AccessDecision>;
}

/** Answers the request itself (401/403/503) and resolves false, or resolves true: serve it. */
export type RequestGate = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/**
 * The token of `Authorization: Bearer <token>` (scheme case-insensitive), as apiserver's bearertoken authenticator
 * reads it.
 */
export function bearerToken(req: IncomingMessage): string | undefined {
  const parts = String(req.headers.authorization ?? '')
    .trim()
    .split(/\s+/);
  if (parts.length !== 2 || parts[0].toLowerCase() !== 'bearer' || parts[1] === '') return undefined;
  return parts[1];
}

export interface GateOptions {
  /** The audience a token must be issued for, named in the 401's advice. */
  readonly audience: string;
  readonly clock: Clock;
}

export function accessReviewGate(reviewer: AccessReview, logger: Logger, opts: GateOptions): RequestGate {
  const unauthorized = (res: ServerResponse) => {
    res.setHeader('WWW-Authenticate', 'Bearer');
    sendText(
      res,
      401,
      `Unauthorized: send a bearer token issued for the audience "${opts.audience}", e.g. from \`kubectl create token <service-account> --audience ${opts.audience}\`\n`,
    );
  };
  const throttled = throttledReport(logger, opts.clock);
  return async (req, res) => {
    const path = requestPath(req);
    const token = bearerToken(req);
    if (token === undefined) {
      unauthorized(res);
      return false;
    }
    // Non-resource requests use the lower-cased method as the verb (apiserver's requestinfo.go).
    const decision = await reviewer.review(token, path, (req.method ?? 'GET').toLowerCase());
    switch (decision.kind) {
      case 'allowed':
        return true;
      case 'unauthenticated':
        logger.v(2).info('Refused a request: the token did not authenticate', { path });
        unauthorized(res);
        return false;
      case 'denied':
        logger.v(2).info('Refused a request: not authorized', { path, user: decision.user, reason: decision.reason });
        sendText(res, 403, `Forbidden: user "${decision.user}" may not ${req.method ?? 'GET'} ${path}\n`);
        return false;
      case 'throttled':
        throttled(path);
        res.setHeader('Retry-After', String(THROTTLED_RETRY_AFTER_SECONDS));
        sendText(res, 429, 'Too Many Requests: too many unknown tokens are being reviewed; try again shortly\n');
        return false;
      case 'unavailable':
        logger.error('Refused a request: the API server could not review its token', { path, err: decision.error });
        res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        sendText(res, 503, 'Service Unavailable: the API server could not review the request; try again later\n');
        return false;
    }
  };
}

/** Logs the first 429 of a flood at once, then one line a minute with how many followed. */
function throttledReport(logger: Logger, clock: Clock): (path: string) => void {
  let since: number | undefined;
  let count = 0;
  return (path) => {
    count++;
    const now = clock.now();
    if (since !== undefined && now - since < THROTTLED_REPORT_INTERVAL_MS) return;
    logger.warn('Refused requests without reviewing their tokens: too many unknown tokens at once', {
      path,
      refused: count,
    });
    since = now;
    count = 0;
  };
}
