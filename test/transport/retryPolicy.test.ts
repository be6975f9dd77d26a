import { describe, expect, it } from 'vitest';
import { ApiError, AssemblyError, ConnectionError, StreamIdleTimeout, StreamProtocolError } from '../../src/errors.js';
import { apiErrorFromHttpResponse, apiErrorFromStreamEvent, errorTypeForStatus } from '../../src/transport/apiErrorFromResponse.js';
import {
  backoffDelayMs,
  decideRetry,
  isRetryableError,
  isRetryableStatus,
  parseRetryAfterMs,
  parseShouldRetry,
  retryErrorType,
} from '../../src/transport/retryPolicy.js';

const apiError = (status: number, retryAfterMs?: number) =>
  new ApiError(status, errorTypeForStatus(status), `HTTP ${status}`, isRetryableStatus(status), undefined, retryAfterMs);

describe('retry policy', () => {
  it('retries 408, 409, 429 and every 5xx, and no other status', () => {
    const retried = [408, 409, 429, 500, 502, 503, 504, 529];
    const notRetried = [400, 401, 403, 404, 413, 422];
    expect(retried.map(isRetryableStatus)).toEqual(retried.map(() => true));
    expect(notRetried.map(isRetryableStatus)).toEqual(notRetried.map(() => false));
  });

  it('classifies each error kind', () => {
    expect(isRetryableError(apiError(529))).toBe(true);
    expect(isRetryableError(apiError(400))).toBe(false);
    expect(isRetryableError(new ConnectionError('reset', 'ECONNRESET'))).toBe(true);
    expect(isRetryableError(new StreamIdleTimeout(100))).toBe(true);
    expect(isRetryableError(new StreamProtocolError('ended_before_message_stop', 'cut'))).toBe(true);
    expect(isRetryableError(new StreamProtocolError('invalid_json', 'garbage', false))).toBe(false);
    expect(isRetryableError(new StreamProtocolError('out_of_order', 'late', false))).toBe(false);
    expect(isRetryableError(new AssemblyError('stop_without_start', 'x'))).toBe(false);
    expect(isRetryableError(new TypeError('a bug'))).toBe(false);
  });

  it('names the failure for the retry announcement', () => {
    expect(retryErrorType(apiError(529))).toBe('overloaded_error');
    expect(retryErrorType(new ConnectionError('reset'))).toBe('connection');
    expect(retryErrorType(new StreamIdleTimeout(1))).toBe('stream_idle_timeout');
    expect(retryErrorType(new StreamProtocolError('ended_before_message_stop', 'cut'))).toBe('ended_before_message_stop');
  });

  it('reads x-should-retry', () => {
    expect(parseShouldRetry({ 'x-should-retry': 'true' })).toBe(true);
    expect(parseShouldRetry({ 'x-should-retry': 'FALSE' })).toBe(false);
    expect(parseShouldRetry({ 'x-should-retry': 'maybe' })).toBeUndefined();
    expect(parseShouldRetry({})).toBeUndefined();
  });

  it('reads retry-after (seconds or HTTP date) and retry-after-ms, taking the larger', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs({ 'retry-after': '3' }, now)).toBe(3000);
    expect(parseRetryAfterMs({ 'retry-after': '0.5' }, now)).toBe(500);
    expect(parseRetryAfterMs({ 'retry-after-ms': '1234' }, now)).toBe(1234);
    expect(parseRetryAfterMs({ 'retry-after': '1', 'retry-after-ms': '1500' }, now)).toBe(1500);
    expect(parseRetryAfterMs({ 'retry-after': '2', 'retry-after-ms': '1500' }, now)).toBe(2000);
    expect(parseRetryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }, now)).toBe(7000);
    expect(parseRetryAfterMs({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }, now)).toBe(0);
    expect(parseRetryAfterMs({ 'retry-after': 'soon', 'retry-after-ms': '-5' }, now)).toBeUndefined();
    expect(parseRetryAfterMs({}, now)).toBeUndefined();
  });

  it('backs off from 500 ms, doubling, capped at 32 s, jittered down by up to 25%', () => {
    const exact = [1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => backoffDelayMs(attempt, { random: () => 0 }));
    expect(exact).toEqual([500, 1000, 2000, 4000, 8000, 16000, 32000, 32000]);
    expect(backoffDelayMs(1, { random: () => 0.999 })).toBe(375);
    expect(backoffDelayMs(3, { random: () => 0.5, baseDelayMs: 10 })).toBe(35);
    expect(backoffDelayMs(10, { random: () => 0, maxDelayMs: 1000 })).toBe(1000);
    for (let i = 0; i < 50; i++) {
      const delay = backoffDelayMs(2);
      expect(delay).toBeGreaterThanOrEqual(750);
      expect(delay).toBeLessThanOrEqual(1000);
    }
  });

  it('decides: bounded by maxRetries, only retryable errors, the larger of backoff and retry-after', () => {
    const options = { random: () => 0 };
    expect(decideRetry(apiError(529), 1, 10, options)).toEqual({ retry: true, delayMs: 500 });
    expect(decideRetry(apiError(529), 10, 10, options)).toEqual({ retry: true, delayMs: 32000 });
    expect(decideRetry(apiError(529), 11, 10, options)).toEqual({ retry: false });
    expect(decideRetry(apiError(529), 1, 0, options)).toEqual({ retry: false });
    expect(decideRetry(apiError(400), 1, 10, options)).toEqual({ retry: false });
    expect(decideRetry(apiError(429, 3000), 1, 10, options)).toEqual({ retry: true, delayMs: 3000 });
    expect(decideRetry(apiError(429, 100), 2, 10, options)).toEqual({ retry: true, delayMs: 1000 });
    expect(decideRetry(apiError(429, 3_600_000), 1, 10, { ...options, maxRetryAfterMs: 60_000 })).toEqual({ retry: true, delayMs: 60_000 });
    expect(decideRetry(new TypeError('bug'), 1, 10, options)).toEqual({ retry: false });
  });
});

describe('API error mapping', () => {
  it('reads a JSON error body: type, message, request id, retry-after', () => {
    const error = apiErrorFromHttpResponse({
      status: 429,
      headers: { 'request-id': 'req_1', 'retry-after': '2' },
      bodyText: JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }),
      now: 0,
    });
    expect(error).toMatchObject({ status: 429, errorType: 'rate_limit_error', retryable: true, requestId: 'req_1', retryAfterMs: 2000 });
    expect(error.message).toBe('HTTP 429 rate_limit_error: slow down (request id req_1)');
  });

  it('takes the request id from the body when the header is missing', () => {
    const bodyText = JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'x' }, request_id: 'req_body' });
    expect(apiErrorFromHttpResponse({ status: 500, headers: {}, bodyText, now: 0 }).requestId).toBe('req_body');
  });

  it('derives the type from the status for a body that is not an API error, quoting its start', () => {
    const html = `<html>\n  <body>${'x'.repeat(1000)}</body></html>`;
    const error = apiErrorFromHttpResponse({ status: 503, headers: {}, bodyText: html, now: 0 });
    expect(error).toMatchObject({ status: 503, errorType: 'api_error', retryable: true });
    expect(error.message).toMatch(/^HTTP 503 api_error: the body is not an API error: <html> <body>x+…$/);
    expect(error.message.length).toBeLessThan(300);
    const json = apiErrorFromHttpResponse({ status: 413, headers: {}, bodyText: '{"detail":"too big"}', now: 0 });
    expect(json).toMatchObject({ errorType: 'request_too_large', retryable: false, isPromptTooLong: true });
  });

  it('lets x-should-retry decide retryability', () => {
    expect(apiErrorFromHttpResponse({ status: 400, headers: { 'x-should-retry': 'true' }, bodyText: '', now: 0 }).retryable).toBe(true);
    expect(apiErrorFromHttpResponse({ status: 529, headers: { 'x-should-retry': 'false' }, bodyText: '', now: 0 }).retryable).toBe(false);
  });

  it('maps an SSE error event like its HTTP twin', () => {
    expect(apiErrorFromStreamEvent({ type: 'overloaded_error', message: 'Overloaded' })).toMatchObject({ status: undefined, retryable: true });
    expect(apiErrorFromStreamEvent({ type: 'api_error', message: 'oops' }).retryable).toBe(true);
    expect(apiErrorFromStreamEvent({ type: 'rate_limit_error', message: 'slow' }).retryable).toBe(true);
    expect(apiErrorFromStreamEvent({ type: 'invalid_request_error', message: 'bad' }).retryable).toBe(false);
    expect(apiErrorFromStreamEvent({ type: 'permission_error', message: 'no' }).retryable).toBe(false);
  });
});
