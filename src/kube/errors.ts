// Kubernetes API errors as typed values (apimachinery's StatusError): the
// HTTP code, the Status reason and Retry-After, so callers test
// `isConflict(err)` rather than parse messages.

import type { StatusBody } from './types.ts';

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
    super(message, options);
  }
}

function reasonOf(err: unknown): string | undefined {
  return err instanceof ApiError ? err.reason : undefined;
}

export const isNotFound = (err: unknown): boolean => reasonOf(err) === 'NotFound';
export const isAlreadyExists = (err: unknown): boolean => reasonOf(err) === 'AlreadyExists';
export const isConflict = (err: unknown): boolean => reasonOf(err) === 'Conflict';
export const isGone = (err: unknown): boolean =>
  err instanceof ApiError && (err.code === 410 || err.reason === 'Gone' || err.reason === 'Expired');
