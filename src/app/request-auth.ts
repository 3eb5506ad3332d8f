// The gate in front of the protected endpoints of the metrics listener
// (/debug/topology, and /metrics with --secure-metrics): the request's bearer
// token is reviewed by the API server (src/kube/access-review.ts) for the
// request's path and its method as the verb, as controller-runtime's
// filters.WithAuthenticationAndAuthorization does. No token or a token the
// TokenReview rejects → 401; a user the SubjectAccessReview does not allow →
// 403; no answer from the API server → 503 (never served). Neither the token
// nor a review body is ever logged: denials are logged with the user and path.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessDecision } from '../kube/access-review.ts';
import type { Logger } from '../log.ts';
import { requestPath, sendText } from './probes.ts';

/** Seconds a client is asked to wait after a 503 (the API server was unreachable). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

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

export function accessReviewGate(reviewer: AccessReview, logger: Logger): RequestGate {
  return async (req, res) => {
    const path = requestPath(req);
    const token = bearerToken(req);
    if (token === undefined) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      sendText(res, 401, 'Unauthorized\n');
      return false;
    }
    // Non-resource requests use the lower-cased method as the verb (apiserver's requestinfo.go).
    const decision = await reviewer.review(token, path, (req.method ?? 'GET').toLowerCase());
    switch (decision.kind) {
      case 'allowed':
        return true;
      case 'unauthenticated':
        logger.v(2).info('Refused a request: the token did not authenticate', { path });
        res.setHeader('WWW-Authenticate', 'Bearer');
        sendText(res, 401, 'Unauthorized\n');
        return false;
      case 'denied':
        logger.v(2).info('Refused a request: not authorized', { path, user: decision.user, reason: decision.reason });
        sendText(res, 403, `Forbidden: user "${decision.user}" may not ${req.method ?? 'GET'} ${path}\n`);
        return false;
      case 'unavailable':
        logger.error('Refused a request: the API server could not review its token', { path, err: decision.error });
        res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        sendText(res, 503, 'Service Unavailable: the API server could not review the request; try again later\n');
        return false;
    }
  };
}
