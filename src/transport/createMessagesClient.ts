/**
 * The Messages API client: `stream(request)` is a cold Observable of validated stream events plus
 * the transport's own `api_retry` / `stream_retry` / `debug` events.
 *
 * ```
 * stream(req):  --s-d-d-X                      (attempt 1 fails after message_start)
 *                        R----                 (stream_retry announced, then the wait)
 *                             --s-d-d-x|       (attempt 2 from the start)
 * ```
 *
 * - One pooled undici dispatcher per client (`close()` releases it).
 * - Nothing is sent before subscribe; each subscription is one request with its retries.
 *   Unsubscribe aborts the running request and closes its socket, or cancels a pending wait.
 * - Each retry is announced before its wait: `api_retry` when nothing of the failed attempt was
 *   emitted, `stream_retry` when its events were (consumers discard since the last message_start).
 * - Waits use `timer(delay, scheduler)`; the idle timeout (`decodedAttempt.ts`) restarts with every
 *   decoded event except `ping`, so a server sending only pings is idle; the total deadline
 *   (`requestTimeoutMs`, default 10 minutes as Claude Code's `API_TIMEOUT_MS`) is one `timer` per
 *   attempt that never restarts, so neither pings nor trickled bytes extend it. All are
 *   virtual-time friendly.
 * - The API key never appears in an error, an event or a log: messages pass through `redact`.
 *
 * ## Example
 * ```ts
 * import { createMessagesClient } from 'rxagent';
 *
 * const client = createMessagesClient({ apiKey: process.env.ANTHROPIC_API_KEY! });
 * client.stream({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] })
 *   .subscribe({ next: (e) => console.log(e.type), complete: () => void client.close() });
 * ```
 * @see {@link decodeSSE} which decodes each response body.
 */
import { asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import { BatchedOutputs } from '../../operators/internal/batchedOutputs.js';
import type { Dispatcher } from 'undici';
import { Agent } from './undiciParts.js';
import { ConfigurationError, redact } from '../errors.js';
import type { MessagesRequest } from '../protocol/request.js';
import { createRequestBodySerializer, type RequestBody } from './requestBody.js';
import { toolUseIdsOf } from './uniqueToolUseIds.js';
import { decodedAttempt } from './decodedAttempt.js';
import { fromMessagesResponse } from './fromMessagesResponse.js';
import { DEFAULT_MAX_RETRIES, type BackoffOptions } from './retryPolicy.js';
import { withAnnouncedRetries } from './withAnnouncedRetries.js';
import type { MessagesClient, StreamCallOptions, TransportOutput } from './types.js';

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
/** Claude Code's `API_TIMEOUT_MS` default: one attempt's total time. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;
export const ANTHROPIC_VERSION = '2023-06-01';

/** Options of {@link createMessagesClient}: endpoint, key, retries and the stream bounds. */
export interface MessagesClientOptions {
  /** Default `https://api.anthropic.com`; a path prefix (a proxy's) is kept. */
  readonly baseURL?: string;
  readonly apiKey: string;
  /** Extra headers on every request; they may override the defaults (lower-cased). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Retries after the first attempt (default 10); per call overridable. */
  readonly maxRetries?: number;
  /** No event but pings for this long fails the attempt with `StreamIdleTimeout` (default 120 s; 0 = off). */
  readonly idleTimeoutMs?: number;
  /**
   * Total time one HTTP attempt may take, from sending the request to the response's last byte;
   * beyond it the attempt fails with `RequestTimeout` and is retried like an idle timeout.
   * Default 10 minutes (`DEFAULT_REQUEST_TIMEOUT_MS`, as Claude Code's `API_TIMEOUT_MS`); 0 = off,
   * for a reply longer than that (tens of thousands of output tokens from a slow model).
   */
  readonly requestTimeoutMs?: number;
  /** The first retry's backoff before jitter (default 500 ms); doubles per retry. */
  readonly retryBaseDelayMs?: number;
  /** Cap of the backoff (default 32 s). */
  readonly retryMaxDelayMs?: number;
  /** Jitter source, uniform in [0, 1) (default `Math.random`). */
  readonly random?: () => number;
  /** Scheduler of the retry waits and the clock for `retry-after` dates (default `asyncScheduler`). */
  readonly scheduler?: SchedulerLike;
  /** Scheduler of the idle timeout and the request deadline (default `asyncScheduler`); separate so a test can fake only waits. */
  readonly idleScheduler?: SchedulerLike;
  /** The SSE parser's buffer cap in characters (see `decodeSSE`). */
  readonly maxBufferSize?: number;
  /**
   * Cap on one response body in characters (default 64 Mi, see `decodeSSE`): a server streaming
   * valid deltas forever fails the call with a non-retryable `StreamProtocolError('buffer_overflow')`.
   */
  readonly maxResponseChars?: number;
  /** Max sockets of the pooled dispatcher per origin (default: unlimited). */
  readonly connections?: number;
  /**
   * Sends through this undici dispatcher instead of a pooled `Agent` (e.g. an `EnvHttpProxyAgent`
   * for `HTTPS_PROXY`/`NO_PROXY`); the client owns it from then on (`close()` closes it).
   */
  readonly dispatcher?: Dispatcher;
}

/** A {@link MessagesClient} that owns its HTTP connections: `close()` releases them. */
export interface ClosableMessagesClient extends MessagesClient {
  /** Releases the pooled sockets; waits for requests still running (unsubscribe them first). */
  close(): Promise<void>;
}

/** Creates a Messages API client whose `stream(request)` is a cold, retrying, abortable Observable of validated stream events (see the module comment above for the details). */
export function createMessagesClient(options: MessagesClientOptions): ClosableMessagesClient {
  const { apiKey } = options;
  if (typeof apiKey !== 'string' || apiKey === '') {
    throw new ConfigurationError('createMessagesClient needs a non-empty apiKey');
  }
  const endpoint = messagesEndpoint(options.baseURL ?? DEFAULT_BASE_URL);
  const clientMaxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const scheduler = options.scheduler ?? asyncScheduler;
  const idleScheduler = options.idleScheduler ?? asyncScheduler;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const backoff: BackoffOptions = {
    ...(options.retryBaseDelayMs !== undefined && { baseDelayMs: options.retryBaseDelayMs }),
    ...(options.retryMaxDelayMs !== undefined && { maxDelayMs: options.retryMaxDelayMs }),
    ...(options.random !== undefined && { random: options.random }),
  };
  const decodeOptions = {
    ...(options.maxBufferSize !== undefined && { maxBufferSize: options.maxBufferSize }),
    ...(options.maxResponseChars !== undefined && { maxResponseChars: options.maxResponseChars }),
  };
  // History messages are stringified once per client, not once per request (see requestBody.ts).
  const serializeBody = createRequestBodySerializer();
  const dispatcher = options.dispatcher ?? new Agent(options.connections === undefined ? {} : { connections: options.connections });
  const baseHeaders = {
    'x-api-key': apiKey,
    'anthropic-version': ANTHROPIC_VERSION,
    'content-type': 'application/json',
    accept: 'text/event-stream',
    ...lowerCaseKeys(options.headers),
  };

  const watch = { idleTimeoutMs, requestTimeoutMs, scheduler: idleScheduler, apiKey };

  /** One HTTP attempt, decoded and watched (idle timeout, deadline, redaction: see decodedAttempt.ts). */
  const attempt = (headers: Record<string, string>, body: RequestBody, takenToolUseIds: ReadonlySet<string>): Observable<TransportOutput> =>
    decodedAttempt(
      fromMessagesResponse({ dispatcher, origin: endpoint.origin, path: endpoint.path, headers, body, now: () => scheduler.now() }),
      { ...watch, decode: { ...decodeOptions, takenToolUseIds } },
    );

  // Batched (see batchedOutputs.ts), so `stream(request).pipe(assembleBlocks())` runs in one stage.
  const stream = (request: MessagesRequest, call: StreamCallOptions = {}): Observable<TransportOutput> =>
    new BatchedOutputs((subscriber, deliver, context) => {
      const maxRetries = call.maxRetries ?? clientMaxRetries;
      const headers = { ...baseHeaders, ...lowerCaseKeys(call.headers) };
      const body = serializeBody(request); // once per call, reused by retries
      // A response must not reuse a tool_use id of the history (the next request would repeat it).
      const taken = toolUseIdsOf(request.messages);
      withAnnouncedRetries(() => attempt(headers, body, taken), {
        maxRetries,
        backoff,
        scheduler,
        mapError: (error) => redactError(error, apiKey),
      }).subscribeBatches(subscriber, deliver, context);
    });

  return {
    stream,
    close: () => dispatcher.close(),
  };
}

function messagesEndpoint(baseURL: string): { origin: string; path: string } {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new ConfigurationError(`baseURL is not a URL: ${baseURL}`);
  }
  return { origin: url.origin, path: `${url.pathname.replace(/\/+$/, '')}/v1/messages` };
}

function lowerCaseKeys(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  if (headers) for (const [name, value] of Object.entries(headers)) result[name.toLowerCase()] = value;
  return result;
}

/** Scrub the key from an error's message and stack (undici or a server may echo a header). */
function redactError(error: unknown, apiKey: string): unknown {
  if (error instanceof Error) {
    if (error.message.includes(apiKey)) error.message = redact(error.message, apiKey);
    if (error.stack?.includes(apiKey)) error.stack = redact(error.stack, apiKey);
  }
  return error;
}
