/**
 * `ResponseHandler`: undici's dispatch handler for one `POST /v1/messages` attempt, which hands
 * each body chunk of an event stream straight to the attempt's subscriber.
 *
 * Why not `dispatcher.request()`: it wraps the body in a `Readable`, so every network chunk went
 * through the stream machinery (push, buffer bookkeeping, a `data` event) before reaching the
 * decoder; a long answer is hundreds of chunks. Our consumer is synchronous and never lags (the
 * decoder takes each chunk in the frame it arrives, as the `data` listener did), so neither that
 * buffering nor pausing the socket buys anything. The handler is a class with module-level
 * methods, not closures per request, so its optimized code outlives every response (one idle
 * instance is kept, see `keepShape`).
 *
 * What it keeps of `request()`: an abort before the connection exists takes effect once it does;
 * 1xx responses are skipped; an error status or a non-stream 200 reads its body up to a cap and
 * becomes an `ApiError`; any failure of undici's becomes a `ConnectionError`.
 */
import { Subscriber } from 'rxjs';
import type { Dispatcher } from 'undici';
import UnwrapHandler from 'undici/lib/handler/unwrap-handler.js';
import { ApiError, ConnectionError } from '../errors.js';
import { apiErrorFromHttpResponse, headerValue, quoteStart, type ResponseHeaders } from './apiErrorFromResponse.js';
import { keepShape } from '../util/keepShape.js';

/** An error body longer than this is cut: its start says what went wrong. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * What the response turned out to be: `pending` (no final status yet), `stream` (a 2xx event
 * stream: chunks go to the subscriber) or `failure` (an error status, or a 2xx that is not an
 * event stream: the body is read for the error).
 */
type Kind = 'pending' | 'stream' | 'failure';

export class ResponseHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined = undefined;
  /** The subscriber left: abort as soon as there is a connection to abort. */
  private abandoned = false;
  /** The subscriber has been told how it ends (or left): later callbacks are noise. */
  private finished = false;
  private kind: Kind = 'pending';
  private status = 0;
  private headers: ResponseHeaders = EMPTY_HEADERS;
  private failureChunks: Buffer[] | undefined = undefined;
  private failureBytes = 0;

  constructor(
    private readonly subscriber: Subscriber<Uint8Array>,
    private readonly origin: string,
    private readonly now: () => number,
  ) {}

  /** The subscriber unsubscribed: the socket is destroyed (a half-read response cannot be reused). */
  abandon(): void {
    if (this.finished) return;
    this.finished = true;
    this.abandoned = true;
    this.controller?.abort(abandonedError());
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abandoned) controller.abort(abandonedError());
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: ResponseHeaders): void {
    if (statusCode < 200) return; // informational: the real status follows
    this.status = statusCode;
    this.headers = headers;
    const contentType = headerValue(headers, 'content-type') ?? '';
    // A 200 that is not a stream (a proxy's page, a JSON answer) is said so instead of "ended early".
    const isStream = statusCode < 300 && (contentType === '' || contentType.includes('text/event-stream'));
    this.kind = isStream ? 'stream' : 'failure';
    if (!isStream) this.failureChunks = [];
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.finished) return;
    if (this.kind === 'stream') {
      this.subscriber.next(chunk);
      return;
    }
    // Copied: undici's chunk is a view of the socket's read buffer, and this one is kept past the call.
    (this.failureChunks ??= []).push(Buffer.from(chunk));
    this.failureBytes += chunk.byteLength;
    if (this.failureBytes >= MAX_ERROR_BODY_BYTES) {
      // Enough to say what went wrong; the rest is not read.
      const error = this.failure();
      this.finished = true;
      controller.abort(error);
      this.subscriber.error(error);
    }
  }

  onResponseEnd(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.kind === 'stream') this.subscriber.complete();
    else this.subscriber.error(this.failure());
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.subscriber.error(toTransportError(error, this.origin));
  }

  /** The error a failure response's status and (capped) body make. */
  private failure(): ApiError {
    const chunks = this.failureChunks ?? [];
    const bodyText = Buffer.concat(chunks).toString('utf8');
    this.failureChunks = undefined;
    if (this.status < 200 || this.status >= 300) {
      return apiErrorFromHttpResponse({ status: this.status, headers: this.headers, bodyText, now: this.now() });
    }
    const contentType = headerValue(this.headers, 'content-type') ?? '';
    return new ApiError(
      this.status,
      'api_error',
      `HTTP ${this.status} with content-type ${contentType} instead of an event stream: ${quoteStart(bodyText) || '(empty body)'}`,
      false,
      headerValue(this.headers, 'request-id'),
    );
  }
}

const EMPTY_HEADERS: ResponseHeaders = {};

/** The reason undici is given when the subscriber leaves (nobody hears of it: the handler is finished). */
const abandonedError = (): Error => new Error('the request was abandoned by its subscriber');

/**
 * One idle handler, and the wrapper and controller undici makes around a handler of this API for
 * each request, so their hidden classes and the code optimized for them survive a full GC between
 * two responses (see keepShape). The handler's subscriber is closed: it hears nothing.
 */
const closedSubscriber = new Subscriber<Uint8Array>();
closedSubscriber.unsubscribe();
keepShape(UnwrapHandler.unwrap(keepShape(new ResponseHandler(closedSubscriber, '', () => 0)))).onConnect(() => undefined);

/** undici's and node's failures as our typed error; an `RxAgentError` passes through. */
function toTransportError(error: unknown, origin: string): unknown {
  if (error instanceof ApiError || error instanceof ConnectionError) return error;
  const code = findCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return new ConnectionError(`connection to ${origin} failed${code ? ` (${code})` : ''}: ${message}`, code, { cause: error });
}

function findCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
