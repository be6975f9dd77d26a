/**
 * Builds the `ApiError` for a failed response: an HTTP error status (with a JSON body in the API's
 * error shape, or anything else, e.g. a proxy's HTML page) or an SSE `error` event inside a 200
 * stream. Both twins share one mapping so a consumer cannot tell them apart by retryability.
 */
import { ApiError } from '../errors.js';
import { apiErrorBodySchema, type ApiErrorType } from '../protocol/errors.js';
import { isRetryableErrorType, isRetryableStatus, parseRetryAfterMs, parseShouldRetry } from './retryPolicy.js';

export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** How much of a non-JSON body is quoted in the message. */
const QUOTED_BODY_CHARS = 200;

/** The error type the API would have sent for this status. */
export function errorTypeForStatus(status: number): ApiErrorType {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return 'api_error';
  }
}

export function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The first characters of a body, on one line, for an error message. */
export function quoteStart(text: string, chars = QUOTED_BODY_CHARS): string {
  const flat = text.slice(0, chars * 2).replace(/\s+/g, ' ').trim();
  return flat.length > chars ? `${flat.slice(0, chars)}…` : flat;
}

export interface HttpErrorInput {
  readonly status: number;
  readonly headers: ResponseHeaders;
  /** The body as text (possibly truncated by the reader). */
  readonly bodyText: string;
  /** Scheduler time, for an HTTP-date `retry-after`. */
  readonly now: number;
}

/** An HTTP error status as an `ApiError`. The message names the status and the error type. */
export function apiErrorFromHttpResponse({ status, headers, bodyText, now }: HttpErrorInput): ApiError {
  const body = parseErrorBody(bodyText);
  const errorType = body?.error.type ?? errorTypeForStatus(status);
  const detail = body
    ? body.error.message
    : bodyText.trim() === ''
      ? '(empty body)'
      : `the body is not an API error: ${quoteStart(bodyText)}`;
  const requestId = headerValue(headers, 'request-id') ?? body?.request_id;
  const retryable = parseShouldRetry(headers) ?? isRetryableStatus(status);
  return new ApiError(
    status,
    errorType,
    `HTTP ${status} ${errorType}: ${detail}${requestId ? ` (request id ${requestId})` : ''}`,
    retryable,
    requestId,
    parseRetryAfterMs(headers, now),
  );
}

/** An SSE `error` event inside a 200 stream, retryable exactly when its HTTP twin would be. */
export function apiErrorFromStreamEvent(error: { readonly type: string; readonly message: string }): ApiError {
  return new ApiError(
    undefined,
    error.type,
    `stream error event ${error.type}: ${error.message}`,
    isRetryableErrorType(error.type),
  );
}

function parseErrorBody(text: string) {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const result = apiErrorBodySchema.safeParse(JSON.parse(text));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}
