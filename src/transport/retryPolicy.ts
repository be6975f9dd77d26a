/**
 * Which failures of a model request are worth another attempt, and how long to wait first.
 * Pure: no clock, no randomness of its own (both are passed in), so every decision is testable.
 *
 * Retried: HTTP 408, 409, 429, 5xx (529 included), connection failures (refused, reset, closed),
 * an SSE `error` event of a retryable type, a body that ended before `message_stop`, and an idle
 * stream. `x-should-retry: true|false` from the server overrides the status rule.
 * Wait: the larger of an exponential backoff (about 500 ms doubling, capped at 32 s, jittered down
 * by up to 25%) and what the server asked for in `retry-after` / `retry-after-ms`.
 */
import { ApiError, ConnectionError, RequestTimeout, StreamIdleTimeout, StreamProtocolError } from '../errors.js';

export const DEFAULT_MAX_RETRIES = 10;
export const DEFAULT_RETRY_BASE_DELAY_MS = 500;
export const DEFAULT_RETRY_MAX_DELAY_MS = 32_000;
/** A server asking for longer than this is clamped: we would rather fail than hang for hours. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 10 * 60_000;

/** Error types of the client's own mistakes: the same request fails the same way again. */
const NON_RETRYABLE_ERROR_TYPES: ReadonlySet<string> = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
]);

/** Whether an HTTP status is worth another attempt (408, 409, 429 and 5xx). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * For an SSE `error` event (no status): overloaded, rate limit and api errors are transient; a type
 * we do not know is treated as transient too, since a 200 stream that breaks is the server's trouble.
 */
export function isRetryableErrorType(errorType: string): boolean {
  return !NON_RETRYABLE_ERROR_TYPES.has(errorType);
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `x-should-retry: true|false`, or undefined when absent or something else. */
export function parseShouldRetry(headers: Headers): boolean | undefined {
  const value = header(headers, 'x-should-retry')?.trim().toLowerCase();
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/**
 * The wait the server asked for, in ms: the larger of `retry-after-ms` and `retry-after` (seconds,
 * or an HTTP date relative to `now`). Undefined when neither is present and valid.
 */
export function parseRetryAfterMs(headers: Headers, now: number): number | undefined {
  const candidates: number[] = [];
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) candidates.push(value);
  }
  const after = header(headers, 'retry-after');
  if (after !== undefined && after.trim() !== '') {
    const seconds = Number(after);
    if (Number.isFinite(seconds)) {
      if (seconds >= 0) candidates.push(seconds * 1000);
    } else {
      const date = Date.parse(after);
      if (Number.isFinite(date)) candidates.push(Math.max(0, date - now));
    }
  }
  return candidates.length === 0 ? undefined : Math.max(...candidates);
}

/** Whether another attempt of the same request may succeed. Unknown errors (bugs) are not retried. */
export function isRetryableError(error: unknown): boolean {
  if (error instanceof ApiError) return error.retryable;
  if (error instanceof ConnectionError) return true;
  if (error instanceof StreamIdleTimeout) return true;
  if (error instanceof RequestTimeout) return true;
  if (error instanceof StreamProtocolError) return error.type === 'ended_before_message_stop';
  return false;
}

/** How long to wait between attempts: exponential backoff with jitter, capped. */
export interface BackoffOptions {
  /** The first retry's wait before jitter (default 500 ms). */
  readonly baseDelayMs?: number;
  /** Cap of the exponential part (default 32 s). */
  readonly maxDelayMs?: number;
  /** Uniform in [0, 1); injectable so tests get exact delays. Default `Math.random`. */
  readonly random?: () => number;
  /** Cap for a server-requested wait (default 10 min). */
  readonly maxRetryAfterMs?: number;
}

/** The backoff for the `attempt`-th retry (1-based): base·2^(attempt-1), capped, minus up to 25% jitter. */
export function backoffDelayMs(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
  const cap = options.maxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS;
  const random = options.random ?? Math.random;
  const exponential = Math.min(base * 2 ** Math.max(0, attempt - 1), cap);
  return Math.round(exponential * (1 - 0.25 * random()));
}

/** The server's requested wait carried by an error, if any. */
export function retryAfterOf(error: unknown): number | undefined {
  return error instanceof ApiError ? error.retryAfterMs : undefined;
}

/** What the retry policy decided for one failed attempt: retry after a delay, or give up. */
export type RetryDecision =
  | { readonly retry: false }
  | { readonly retry: true; readonly delayMs: number };

/**
 * Decide about the `attempt`-th retry (1-based) after `error`, given at most `maxRetries` retries.
 */
export function decideRetry(
  error: unknown,
  attempt: number,
  maxRetries: number,
  options: BackoffOptions = {},
): RetryDecision {
  if (attempt > maxRetries || !isRetryableError(error)) return { retry: false };
  const backoff = backoffDelayMs(attempt, options);
  const requested = retryAfterOf(error);
  const clampedRequest =
    requested === undefined ? 0 : Math.min(requested, options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS);
  return { retry: true, delayMs: Math.max(backoff, clampedRequest) };
}

/** The `errorType` an announced retry carries: the API's type or the transport failure's name. */
export function retryErrorType(error: unknown): string {
  if (error instanceof ApiError) return error.errorType;
  if (error instanceof ConnectionError) return 'connection';
  if (error instanceof StreamIdleTimeout) return 'stream_idle_timeout';
  if (error instanceof RequestTimeout) return 'request_timeout';
  if (error instanceof StreamProtocolError) return error.type;
  return 'unknown';
}
