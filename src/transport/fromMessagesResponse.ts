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
import type { RequestBody } from './requestBody.js';
import { ResponseHandler } from './responseHandler.js';

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
    // Our own handler, not `request()` and its body stream: see responseHandler.ts.
    const handler = new ResponseHandler(subscriber, request.origin, request.now);
    request.dispatcher.dispatch(
      {
        origin: request.origin,
        path: request.path,
        method: 'POST',
        ...bodyOptions(request),
        // The caller's idle timeout (on RxJS time) owns stalls; undici's own timers would race it.
        headersTimeout: 0,
        bodyTimeout: 0,
      },
      handler,
    );
    return () => handler.abandon();
  });
}

/**
 * Bodies up to this size are joined into one buffer: undici then writes the head and the body in
 * one `writev`, where an iterable body costs a cork, a write and a microtask per chunk. Copying
 * 64 KiB is a few microseconds; above it the copy would outgrow the writes it saves.
 */
const JOIN_AT_MOST = 64 * 1024;

/** The body and headers undici gets: a small body as one buffer, a large one as an iterable of its chunks (no join). */
function bodyOptions(request: MessagesHttpRequest): Pick<Dispatcher.DispatchOptions, 'headers' | 'body'> {
  const body = request.body;
  if (typeof body === 'string' || body instanceof Uint8Array) return { headers: request.headers, body };
  if (body.chunks.length === 1) return { headers: request.headers, body: body.chunks[0]! };
  if (body.byteLength <= JOIN_AT_MOST) return { headers: request.headers, body: Buffer.concat(body.chunks, body.byteLength) };
  // A length known up front: no chunked encoding, and undici checks the chunks add up to it.
  // undici writes any iterable body (lib/core/request.js); its type declaration lists only streams.
  return { headers: { ...request.headers, 'content-length': String(body.byteLength) }, body: body.chunks as unknown as Readable };
}
