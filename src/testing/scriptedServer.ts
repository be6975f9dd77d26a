/**
 * The scripted model server: a real node:http server on 127.0.0.1 speaking `POST /v1/messages`,
 * playing a script of responses (SSE streams, JSON messages, HTTP errors, raw bytes, stalls) and
 * recording every request. Tests, the demo and the benchmarks run the real client against it, so
 * a client bug shows up exactly as it would against the real API.
 *
 * Choices worth knowing:
 * - An invalid request (per `validateMessagesRequest`, or a body that is not JSON) gets a 400 in
 *   the API's error shape and does NOT consume a script entry: the script describes what the
 *   model says to valid requests, so a client bug fails loudly instead of also shifting every
 *   later response by one and burying the real cause under confusing follow-up failures.
 * - `stream: true` gets SSE; any other value gets the assembled message as JSON, like the real API.
 * - When the script is exhausted the server answers 500 with `x-should-retry: false` (so a
 *   retrying client fails fast) and a body that says so; the request is recorded.
 * - Delays use real timers (this is a server, not library code); every timer is cleared and every
 *   stalled response and socket is closed by `close()`, so a test never hangs on it.
 * - The `x-api-key` and `authorization` headers are recorded as non-enumerable properties: they can
 *   be read (`headers['x-api-key']`) but are left out when a record is printed, diffed or serialized.
 */
import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MessagesRequest } from '../protocol/request.js';
import { assertNever } from '../util/assertNever.js';
import {
  encodeSSE,
  estimateInputTokensOfLength,
  planScriptedStream,
  scriptedMessageToJson,
  type EncodeScriptOptions,
  type ScriptedStreamPlan,
} from './encodeScript.js';
import type {
  RecordedRequest,
  Script,
  ScriptedHttpError,
  ScriptedMessage,
  ScriptedRaw,
  ScriptedResponse,
} from './script.js';
import { scriptMisfits } from './scriptFitsRequest.js';
import { createPlayback, type Playback, type PlaybackSignal } from './playback.js';
import { createPromptCacheSimulator, type PromptCacheOptions } from './promptCache.js';
import { createRequestBodyParser, type ParsedBody } from './requestBodyParser.js';
import { validateMessagesRequestCached, type MessageSchemaCache } from './validateRequest.js';

/** Options of {@link startScriptedServer}. */
export interface ScriptedServerOptions {
  readonly script: Script;
  /** Validate each request like the real API and answer invalid ones with a 400. Default true. */
  readonly validate?: boolean;
  /** Called with each request's record as soon as it is recorded, before the response. */
  readonly onRequest?: (request: RecordedRequest) => void;
  /**
   * Bill prompt caching like the API (see `promptCache.ts`): a prefix up to a breakpoint that an
   * earlier request wrote is billed as cache read. Default off (usage is the plain estimate).
   */
  readonly promptCache?: boolean | PromptCacheOptions;
}

/** A running scripted model server. */
export interface ScriptedServer {
  /** `http://127.0.0.1:<port>`: pass it as the client's baseURL. */
  readonly baseURL: string;
  readonly port: number;
  /** Every `POST /v1/messages` received, in arrival order (valid or not). */
  readonly requests: RecordedRequest[];
  /** Resolves once at least `n` requests were recorded; rejects after `timeoutMs` (default 30 s: a bound on a hang, generous for a busy machine). */
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  /** Resolves once the client closed request `index`'s connection early; rejects after `timeoutMs` (default 30 s). */
  waitForClientClose(index: number, timeoutMs?: number): Promise<void>;
  /** Ends stalled responses, closes every socket, clears every timer. Idempotent. */
  close(): Promise<void>;
}

const SENSITIVE_HEADERS = new Set(['x-api-key', 'authorization']);

/** How long `waitForRequests` / `waitForClientClose` wait by default. */
const DEFAULT_WAIT_MS = 30_000;

/** The HTTP status the real API uses for an error type (for JSON-mode `errorAfterEvents`). */
const STATUS_BY_ERROR_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

const ERROR_TYPE_BY_STATUS: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(STATUS_BY_ERROR_TYPE).map(([type, status]) => [status, type]),
);

/** Starts a scripted Messages API server on 127.0.0.1 that plays `script` and records every request. */
export async function startScriptedServer(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const { script, validate = true, onRequest } = options;
  const promptCache = options.promptCache ? createPromptCacheSimulator(options.promptCache === true ? {} : options.promptCache) : undefined;
  const requests: RecordedRequest[] = [];
  const closing = new AbortController();
  // One listener per pending wait (waitForRequests, waitForClientClose): many at once is not a leak.
  setMaxListeners(0, closing.signal);
  const timers = new Set<NodeJS.Timeout>();
  /** The playbacks of open responses, which `close()` ends (a set, not an abort listener each: cheaper per request). */
  const playbacks = new Set<Playback>();
  const listeners = new Set<() => void>();
  let played = 0;
  const bodyParser = createRequestBodyParser();
  const schemaCache: MessageSchemaCache = new WeakSet();

  const notify = (): void => {
    for (const listener of [...listeners]) listener();
  };

  /** Waits `ms`; resolves false instead when `signal` aborts first. */
  const sleep = (ms: number, signal: PlaybackSignal): Promise<boolean> => {
    if (signal.aborted) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        timers.delete(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      timers.add(timer);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  };

  const waitUntil = (done: () => boolean, timeoutMs: number, describeFailure: () => string): Promise<void> => {
    if (done()) return Promise.resolve();
    if (closing.signal.aborted) return Promise.reject(new Error(`scripted server closed: ${describeFailure()}`));
    return new Promise((resolve, reject) => {
      const finish = (error?: Error): void => {
        clearTimeout(timer);
        timers.delete(timer);
        listeners.delete(check);
        closing.signal.removeEventListener('abort', onClose);
        if (error) reject(error);
        else resolve();
      };
      const check = (): void => {
        if (done()) finish();
      };
      const onClose = (): void => finish(new Error(`scripted server closed: ${describeFailure()}`));
      const timer = setTimeout(() => finish(new Error(`timed out after ${timeoutMs} ms: ${describeFailure()}`)), timeoutMs);
      timers.add(timer);
      listeners.add(check);
      closing.signal.addEventListener('abort', onClose, { once: true });
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/messages') {
      req.resume();
      sendJson(res, 404, {}, apiErrorBody('not_found_error', `scripted server: no route for ${req.method} ${path}`));
      return;
    }

    let chunks: Buffer[];
    try {
      chunks = await readBody(req);
    } catch {
      return; // the client went away mid-body: there is nobody to answer
    }

    let parsed: ParsedBody | undefined;
    let parseError: string | undefined;
    try {
      parsed = bodyParser.parseChunks(chunks);
    } catch (error) {
      parseError = `request body is not valid JSON: ${(error as Error).message}`;
    }
    const rawBody = parsed?.decode ?? (() => Buffer.concat(chunks).toString('utf8'));
    const value = parsed?.value;
    if (parseError === undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      // Checked even without validation: nothing can be played for a body that is not an object.
      parseError = 'request body must be a JSON object';
    }
    const validationErrors = parseError !== undefined ? [parseError] : validate ? validateMessagesRequestCached(value, schemaCache) : [];

    const record = recordOf(requests.length, recordHeaders(req), rawBody, parseError === undefined ? (value as MessagesRequest) : undefined, validationErrors);
    requests.push(record);

    // Per response: aborted when the client goes away or the server closes, ending any playback.
    const playback = createPlayback();
    playbacks.add(playback);
    const state = { destroyedByServer: false };
    res.on('close', () => {
      playbacks.delete(playback);
      if (!res.writableFinished && !state.destroyedByServer && !closing.signal.aborted) record.closedByClient = true;
      record.endedAt = Date.now();
      playback.abort();
      notify();
    });

    onRequest?.(record);
    notify();

    const headers = { 'request-id': `req_scripted_${record.index}` };
    if (validationErrors.length > 0) {
      const message = `scripted server: request #${record.index} is invalid:\n${validationErrors.join('\n')}`;
      sendJson(res, 400, headers, apiErrorBody('invalid_request_error', message, headers['request-id']));
      return;
    }
    const request = value as MessagesRequest;

    let response: ScriptedResponse | undefined;
    try {
      response = typeof script === 'function' ? script(request, played) : script[played];
    } catch (error) {
      const message = `scripted server: the script function threw for request #${record.index}: ${(error as Error).message}`;
      sendJson(res, 500, { ...headers, 'x-should-retry': 'false' }, apiErrorBody('api_error', message));
      return;
    }
    if (response === undefined) {
      const message = `scripted server: the script is exhausted after ${played} response(s); request #${record.index} was not expected`;
      sendJson(res, 500, { ...headers, 'x-should-retry': 'false' }, apiErrorBody('api_error', message));
      return;
    }
    const misfits = response.kind === 'message' ? scriptMisfits(request, response, played) : [];
    if (misfits.length > 0) {
      // The script's fault, not the client's: a 500 that says so and is not retried, and the reply stays unplayed.
      const message = `scripted server: the script's reply to request #${record.index} is not one the API could give:\n${misfits.join('\n')}`;
      sendJson(res, 500, { ...headers, 'x-should-retry': 'false' }, apiErrorBody('api_error', message));
      return;
    }
    const responseIndex = played++;
    // The decoded body's length, known without decoding the part reused from the previous request.
    const inputTokens = estimateInputTokensOfLength(parsed!.textLength);
    const encode: EncodeScriptOptions = {
      responseIndex,
      model: request.model,
      inputTokens,
      ...(promptCache ? { cacheBill: promptCache.bill(request, inputTokens) } : {}),
    };
    const ctx: PlayContext = { res, headers, signal: playback.signal, sleep, state, requestId: headers['request-id'] };

    switch (response.kind) {
      case 'message':
        if (request.stream === true) await playStream(ctx, response, encode);
        else await playJson(ctx, response, encode);
        return;
      case 'http_error':
        playHttpError(ctx, response);
        return;
      case 'raw':
        await playRaw(ctx, response);
        return;
      case 'stall':
        res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
        res.flushHeaders();
        await untilAborted(playback.signal);
        return;
      default:
        assertNever(response, 'scripted response');
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in the server itself: answer if still possible, never crash the test process.
      if (!res.headersSent) {
        sendJson(res, 500, { 'x-should-retry': 'false' }, apiErrorBody('api_error', `scripted server failed: ${String(error)}`));
      } else {
        res.destroy();
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    port,
    requests,
    waitForRequests: (n, timeoutMs = DEFAULT_WAIT_MS) =>
      waitUntil(
        () => requests.length >= n,
        timeoutMs,
        () => `expected ${n} request(s), got ${requests.length}`,
      ),
    waitForClientClose: (index, timeoutMs = DEFAULT_WAIT_MS) =>
      waitUntil(
        () => requests[index]?.closedByClient === true,
        timeoutMs,
        () => `the client did not close request #${index} (${requests.length} request(s) recorded)`,
      ),
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        for (const playback of playbacks) playback.abort();
        playbacks.clear();
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

interface PlayContext {
  readonly res: ServerResponse;
  readonly headers: Readonly<Record<string, string>>;
  readonly signal: PlaybackSignal;
  readonly sleep: (ms: number, signal: PlaybackSignal) => Promise<boolean>;
  readonly state: { destroyedByServer: boolean };
  readonly requestId: string;
}

async function playStream(ctx: PlayContext, msg: ScriptedMessage, encode: EncodeScriptOptions): Promise<void> {
  const { res, signal } = ctx;
  // Both may throw on a bad script (chunk sizes): before the headers, so it becomes a clear 500.
  const plan = planScriptedStream(msg, encode);
  const writer = createChunkWriter(res, msg.byteChunkSize, plan.ending === 'destroy');
  res.writeHead(200, {
    ...ctx.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...msg.headers,
  });
  // Usually the first event is written in this same tick, and node sends the headers with it in
  // one socket write; flushing them first cost a write of their own per response. They are
  // flushed at once whenever the first bytes may wait (see firstEventWaits), so a client still
  // gets the headers right away when the body is held back.
  if (firstEventWaits(plan, msg)) res.flushHeaders();

  for (const { event, delayMs } of plan.events) {
    if (!(await ctx.sleep(delayMs, signal))) return;
    if (event.type === 'content_block_start' && !(await heldUntil(msg.blocks[event.index]?.startAfter, signal))) return;
    if (event.type === 'message_delta' && !(await heldUntil(msg.endAfter, signal))) return;
    if (!(await writer.write(encodeSSE(event)))) return;
  }
  if (!(await writer.flush())) return;

  switch (plan.ending) {
    case 'end':
      res.end();
      return;
    case 'destroy':
      await writer.drained();
      ctx.state.destroyedByServer = true;
      res.destroy();
      return;
    case 'stall':
      await untilAborted(signal);
      return;
    default:
      assertNever(plan.ending, 'stream ending');
  }
}

/**
 * Whether the stream's first bytes may not be written in the tick its headers are: no events at
 * all, a delay or a gate before the first one, or a chunk size that may hold its bytes back.
 * The gates and the delay are the ones playStream's loop waits for.
 */
function firstEventWaits(plan: ScriptedStreamPlan, msg: ScriptedMessage): boolean {
  const first = plan.events[0];
  if (first === undefined || msg.byteChunkSize !== undefined || first.delayMs > 0) return true;
  if (first.event.type === 'content_block_start') return msg.blocks[first.event.index]?.startAfter !== undefined;
  if (first.event.type === 'message_delta') return msg.endAfter !== undefined;
  return false;
}

/** Waits for a script's `endAfter` gate; false when the playback was aborted first. */
async function heldUntil(gate: PromiseLike<unknown> | undefined, signal: PlaybackSignal): Promise<boolean> {
  if (gate === undefined) return !signal.aborted;
  await Promise.race([Promise.resolve(gate).then(noop, noop), untilAborted(signal)]);
  return !signal.aborted;
}

const noop = (): void => undefined;

async function playJson(ctx: PlayContext, msg: ScriptedMessage, encode: EncodeScriptOptions): Promise<void> {
  const { res, signal } = ctx;
  const plan = planScriptedStream(msg, encode);
  // The non-streaming API answers once the whole message exists: wait for all the delays at once.
  const totalDelay = plan.events.reduce((sum, e) => sum + e.delayMs, 0);
  if (!(await ctx.sleep(totalDelay, signal))) return;
  for (const block of msg.blocks) if (!(await heldUntil(block.startAfter, signal))) return;
  if (!(await heldUntil(msg.endAfter, signal))) return;

  if (plan.ending === 'destroy') {
    ctx.state.destroyedByServer = true;
    res.destroy();
    return;
  }
  if (plan.ending === 'stall') {
    res.writeHead(200, { ...ctx.headers, 'content-type': 'application/json', ...msg.headers });
    res.flushHeaders();
    await untilAborted(signal);
    return;
  }
  const error = msg.errorAfterEvents;
  if (error) {
    const status = STATUS_BY_ERROR_TYPE[error.type] ?? 500;
    sendJson(res, status, { ...ctx.headers, ...msg.headers }, apiErrorBody(error.type, error.message, ctx.requestId));
    return;
  }
  let message;
  try {
    message = scriptedMessageToJson(msg, encode);
  } catch (e) {
    const text = `scripted server: cannot answer in JSON mode: ${(e as Error).message}`;
    sendJson(res, 500, { ...ctx.headers, 'x-should-retry': 'false' }, apiErrorBody('api_error', text, ctx.requestId));
    return;
  }
  sendJson(res, 200, { ...ctx.headers, ...msg.headers }, message);
}

function playHttpError(ctx: PlayContext, response: ScriptedHttpError): void {
  const { status, body } = response;
  const headers = { ...ctx.headers, ...response.headers };
  if (typeof body === 'string') {
    const type = body.trimStart().startsWith('<') ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8';
    ctx.res.writeHead(status, { 'content-type': type, ...headers });
    ctx.res.end(body);
    return;
  }
  const errorType = response.errorType ?? ERROR_TYPE_BY_STATUS[status] ?? 'api_error';
  sendJson(
    ctx.res,
    status,
    headers,
    body ?? apiErrorBody(errorType, response.message ?? `scripted ${status} ${errorType}`, ctx.requestId),
  );
}

async function playRaw(ctx: PlayContext, response: ScriptedRaw): Promise<void> {
  const { res, signal } = ctx;
  res.writeHead(response.status ?? 200, {
    ...ctx.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...response.headers,
  });
  res.flushHeaders();
  const writer = createChunkWriter(res, undefined, response.destroy === true);
  for (const chunk of response.chunks) {
    const { text, delayMs } = typeof chunk === 'string' || chunk instanceof Uint8Array ? { text: chunk, delayMs: 0 } : chunk;
    if (!(await ctx.sleep(delayMs, signal))) return;
    if (!(await writer.write(text))) return;
  }
  if (response.holdOpen) {
    await writer.flush();
    await untilAborted(signal);
    return;
  }
  if (response.destroy) {
    await writer.drained();
    ctx.state.destroyedByServer = true;
    res.destroy();
  } else {
    res.end();
  }
}

interface ChunkWriter {
  /** Writes (or buffers, when chunking) `text`; false when the response is gone. */
  write(text: string | Uint8Array): Promise<boolean>;
  /** Writes what is buffered. */
  flush(): Promise<boolean>;
  /** Resolves once everything written so far reached the socket (before a deliberate destroy). */
  drained(): Promise<void>;
}

/**
 * Writes SSE text, optionally re-cut into `byteChunkSize`-byte writes that ignore event
 * boundaries (what a real network does to a stream). A remainder shorter than a chunk waits for
 * the next event's bytes, so part of an event may arrive before a delay and the rest after it.
 */
function createChunkWriter(res: ServerResponse, byteChunkSize: number | undefined, trackFlush = false): ChunkWriter {
  if (byteChunkSize !== undefined && (!Number.isInteger(byteChunkSize) || byteChunkSize < 1)) {
    throw new RangeError(`byteChunkSize must be a positive integer, got ${byteChunkSize}`);
  }
  let pending = Buffer.alloc(0);
  let last: Promise<void> = Promise.resolve();

  const put = async (bytes: Uint8Array | string): Promise<boolean> => {
    if (res.destroyed) return false;
    let ok: boolean;
    if (trackFlush) {
      // Only before a deliberate destroy: the callback says these bytes reached the socket.
      let flushed!: () => void;
      last = new Promise((resolve) => (flushed = resolve));
      ok = res.write(bytes, () => flushed());
    } else {
      ok = res.write(bytes);
    }
    if (!ok) {
      // Respect backpressure so a huge stream does not pile up in memory.
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
    return !res.destroyed;
  };

  return {
    async write(text) {
      if (byteChunkSize === undefined) return put(text);
      const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text);
      pending = pending.length === 0 ? bytes : Buffer.concat([pending, bytes]);
      let offset = 0;
      while (pending.length - offset >= byteChunkSize) {
        if (!(await put(pending.subarray(offset, offset + byteChunkSize)))) return false;
        offset += byteChunkSize;
      }
      pending = pending.subarray(offset);
      return true;
    },
    async flush() {
      if (pending.length === 0) return !res.destroyed;
      const rest = pending;
      pending = Buffer.alloc(0);
      return put(rest);
    },
    drained: () => last,
  };
}

function untilAborted(signal: PlaybackSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * The body as the chunks it arrived in, not joined: the parser compares them with the previous
 * body of the conversation and copies only what differs. Rejects if the client goes away.
 */
function readBody(req: IncomingMessage): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    let ended = false;
    req.once('error', reject);
    req.once('close', () => {
      if (!ended) reject(new Error('the client went away before the end of the body'));
    });
    req.once('end', () => {
      ended = true;
      resolve(chunks);
    });
  });
}

/**
 * A request's record; `rawBody` is decoded when first read (a benchmark's server never reads it,
 * and at turn 1000 decoding 2 MB was a large part of a request's cost).
 */
function recordOf(
  index: number,
  headers: Record<string, string | string[] | undefined>,
  decode: () => string,
  body: MessagesRequest | undefined,
  validationErrors: readonly string[],
): RecordedRequest {
  const record: RecordedRequest = { index, receivedAt: Date.now(), headers, body, rawBody: '', validationErrors, closedByClient: false };
  let rawBody: string | undefined;
  // Redefined in place, so the record's keys keep their order.
  Object.defineProperty(record, 'rawBody', {
    enumerable: true,
    configurable: true,
    get: () => (rawBody ??= decode()),
  });
  return record;
}

/** A copy of the headers with credentials non-enumerable: readable, but never printed. */
function recordHeaders(req: IncomingMessage): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (SENSITIVE_HEADERS.has(name)) {
      Object.defineProperty(out, name, { value, enumerable: false });
    } else {
      out[name] = value;
    }
  }
  return out;
}

function apiErrorBody(type: string, message: string, requestId?: string) {
  return { type: 'error' as const, error: { type, message }, ...(requestId ? { request_id: requestId } : {}) };
}

function sendJson(res: ServerResponse, status: number, headers: Readonly<Record<string, string>>, body: unknown): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}
