/**
 * One HTTP attempt of `POST /v1/messages` as a cold Observable of body chunks: the I/O edge of the
 * transport. Subscribing sends the request; unsubscribing aborts it, which makes undici destroy
 * the socket (a half-read response cannot be reused), so the server sees the client leave.
 *
 * A non-2xx status becomes an `ApiError` (the body read up to a cap, JSON or not); a failure to
 * connect or a connection that drops mid-body becomes a `ConnectionError`.
 */
import { Observable } from 'rxjs';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { ApiError, ConnectionError } from '../errors.js';
import { apiErrorFromHttpResponse, headerValue, quoteStart } from './apiErrorFromResponse.js';
import type { RequestBody } from './requestBody.js';

/** An error body longer than this is cut: its start says what went wrong. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface MessagesHttpRequest {
  readonly dispatcher: Dispatcher;
  readonly origin: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body: text, encoded, or encoded in chunks (written in order, with their total as content-length). */
  readonly body: string | Uint8Array | RequestBody;
  /** The clock for an HTTP-date `retry-after`. */
  readonly now: () => number;
}

export function fromMessagesResponse(request: MessagesHttpRequest): Observable<Uint8Array> {
  return new Observable<Uint8Array>((subscriber) => {
    const controller = new AbortController();
    let finished = false;
    const fail = (error: unknown): void => {
      // After our own abort (unsubscribe) nobody listens; anything else is the connection failing.
      if (!controller.signal.aborted) subscriber.error(toTransportError(error, request.origin));
    };

    request.dispatcher
      .request({
        origin: request.origin,
        path: request.path,
        method: 'POST',
        ...bodyOptions(request),
        signal: controller.signal,
        // The caller's idle timeout (on RxJS time) owns stalls; undici's own timers would race it.
        headersTimeout: 0,
        bodyTimeout: 0,
      })
      .then(async (response) => {
        const { statusCode, headers, body } = response;
        const contentType = headerValue(headers, 'content-type') ?? '';
        if (statusCode < 200 || statusCode >= 300) {
          const bodyText = await readCapped(body);
          finished = true;
          subscriber.error(apiErrorFromHttpResponse({ status: statusCode, headers, bodyText, now: request.now() }));
          return;
        }
        if (contentType !== '' && !contentType.includes('text/event-stream')) {
          // A 200 that is not a stream (a proxy's page, a JSON answer): say so instead of "ended early".
          const bodyText = await readCapped(body);
          finished = true;
          const requestId = headerValue(headers, 'request-id');
          subscriber.error(
            new ApiError(
              statusCode,
              'api_error',
              `HTTP ${statusCode} with content-type ${contentType} instead of an event stream: ${quoteStart(bodyText) || '(empty body)'}`,
              false,
              requestId,
            ),
          );
          return;
        }
        body.on('data', (chunk: Uint8Array) => subscriber.next(chunk));
        body.on('end', () => {
          finished = true;
          subscriber.complete();
        });
        body.on('error', fail);
      })
      .catch(fail);

    return () => {
      if (!finished) controller.abort();
    };
  });
}

/** The body and headers undici gets: chunks go as an iterable (each written as it is, no join). */
function bodyOptions(request: MessagesHttpRequest): Pick<Dispatcher.RequestOptions, 'headers' | 'body'> {
  const body = request.body;
  if (typeof body === 'string' || body instanceof Uint8Array) return { headers: request.headers, body };
  if (body.chunks.length === 1) return { headers: request.headers, body: body.chunks[0]! };
  // A length known up front: no chunked encoding, and undici checks the chunks add up to it.
  // undici writes any iterable body (lib/core/request.js); its type declaration lists only streams.
  return { headers: { ...request.headers, 'content-length': String(body.byteLength) }, body: body.chunks as unknown as Readable };
}

async function readCapped(body: AsyncIterable<Uint8Array> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk));
    size += chunk.byteLength;
    if (size >= MAX_ERROR_BODY_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

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
