// Turns an API server error response into an ApiError, as apimachinery's
// errors.FromObject / rest.Result.Error() do: the Status body's reason,
// message and retryAfterSeconds when present, otherwise a reason derived from
// the HTTP code (a proxy or a crashed server may answer with plain text).

import { truncateText } from '../util/truncate.ts';
import { ApiError, type StatusReason } from './errors.ts';
import type { StatusBody } from './types.ts';

const REASON_BY_CODE: Record<number, StatusReason> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Gone',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** A plain-text error body (a proxy's page) is quoted only this far: it is a hint, not the message. */
const PLAIN_ERROR_BODY_MAX_BYTES = 200;

function reasonForCode(code: number): StatusReason {
  return REASON_BY_CODE[code] ?? (code >= 500 ? 'InternalError' : 'Unknown');
}

/** Parses `Retry-After` in seconds (the API server never sends an HTTP date). */
export function parseRetryAfter(header: string | string[] | undefined): number | undefined {
  const v = Array.isArray(header) ? header[0] : header;
  if (v === undefined || !/^\d+$/.test(v.trim())) return undefined;
  return Number(v.trim());
}

export function isStatusBody(x: unknown): x is StatusBody {
  return typeof x === 'object' && x !== null && (x as StatusBody).kind === 'Status';
}

export function statusToError(status: StatusBody, fallbackCode: number, retryAfterHeader?: number): ApiError {
  const code = status.code || fallbackCode;
  const reason = status.reason || reasonForCode(code);
  const message =
    status.message || `the server responded with the status code ${code} but did not return more information`;
  return new ApiError(message, code, reason, status, retryAfterHeader ?? status.details?.retryAfterSeconds);
}

/** An ApiError for a non-2xx response with body `text`. */
export function errorFromResponse(code: number, text: string, retryAfterHeader?: number): ApiError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isStatusBody(body)) return statusToError(body, code, retryAfterHeader);
  const detail = text.trim() ? ` (${truncateText(text.trim(), PLAIN_ERROR_BODY_MAX_BYTES)})` : '';
  return new ApiError(
    `the server responded with the status code ${code} but did not return more information${detail}`,
    code,
    reasonForCode(code),
    undefined,
    retryAfterHeader,
  );
}
