// Kubernetes API errors as typed values (apimachinery's StatusError): the
// HTTP code, the Status reason and Retry-After, so callers test
// `isConflict(err)` rather than parse messages.

import { truncateText } from '../util/truncate.ts';
import type { StatusBody } from './types.ts';

/**
 * An error message from the API server (or a proxy in front of it) is foreign
 * text: a 422 listing every invalid field or an HTML error page must not
 * become a megabyte log line. The full Status stays on `status`.
 */
export const API_ERROR_MESSAGE_MAX_BYTES = 1024;

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Gone'
  | 'Expired'
  | 'TooManyRequests'
  | 'ServerTimeout'
  | 'Timeout'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'Unknown'
  | (string & {});

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    readonly code: number,
    readonly reason: StatusReason,
    readonly status?: StatusBody,
    /** Seconds the server asked us to wait (Retry-After header or details.retryAfterSeconds). */
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(truncateText(message, API_ERROR_MESSAGE_MAX_BYTES), options);
  }
}

function reasonOf(err: unknown): string | undefined {
  return err instanceof ApiError ? err.reason : undefined;
}

export const isNotFound = (err: unknown): boolean => reasonOf(err) === 'NotFound';
export const isAlreadyExists = (err: unknown): boolean => reasonOf(err) === 'AlreadyExists';
export const isConflict = (err: unknown): boolean => reasonOf(err) === 'Conflict';
export const isForbidden = (err: unknown): boolean => reasonOf(err) === 'Forbidden';
export const isGone = (err: unknown): boolean =>
  err instanceof ApiError && (err.code === 410 || err.reason === 'Gone' || err.reason === 'Expired');

/**
 * A list that asked for a resourceVersion the server's cache has not reached
 * (apimachinery's IsTooLargeResourceVersionError): 504 `Timeout` with a
 * `ResourceVersionTooLarge` cause, or the message older servers send.
 */
export const isTooLargeResourceVersion = (err: unknown): boolean =>
  err instanceof ApiError &&
  err.code === 504 &&
  ((err.status?.details?.causes ?? []).some(
    (c) => (c as { reason?: unknown } | null)?.reason === 'ResourceVersionTooLarge',
  ) ||
    err.message.includes('Too large resource version'));
