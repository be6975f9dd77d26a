/** What the transport emits besides the API's own stream events. */
import type { Observable } from 'rxjs';
import type { MessagesRequest } from '../protocol/request.js';
import type { StreamEvent } from '../protocol/events.js';

/** A retry announced before its wait; nothing of the failed attempt had been emitted. */
export interface ApiRetryEvent {
  readonly type: 'api_retry';
  /** 1 for the first retry. */
  readonly attempt: number;
  readonly maxRetries: number;
  readonly delayMs: number;
  /** HTTP status, when there was one. */
  readonly status: number | undefined;
  /** API error type or a transport error name (`connection`, `stream_idle_timeout`, ...). */
  readonly errorType: string;
  readonly message: string;
}

/**
 * A retry after stream events of the failed attempt were already emitted: consumers must discard
 * everything since the last `message_start` (a fresh one follows).
 */
export interface StreamRetryEvent extends Omit<ApiRetryEvent, 'type'> {
  readonly type: 'stream_retry';
}

/** Something worth a look that is not an error: an unknown event or delta type, ignored. */
export interface DebugEvent {
  readonly type: 'debug';
  readonly message: string;
  readonly data?: unknown;
}

/** The transport's own events, mixed into the stream: retries announced before their wait, debug notes. */
export type TransportEvent = ApiRetryEvent | StreamRetryEvent | DebugEvent;
/** What a client stream emits: validated API stream events plus {@link TransportEvent}s. */
export type TransportOutput = StreamEvent | TransportEvent;

/** Streams one Messages API request: what the loop and the operators need of a client. */
export interface MessagesClient {
  /**
   * Cold: nothing is sent before subscribe; each subscription is one request (with its retries).
   * Unsubscribe aborts the request and closes the socket. Errors are `RxAgentError`s.
   */
  stream(request: MessagesRequest, options?: StreamCallOptions): Observable<TransportOutput>;
}

/** Per-call options of {@link MessagesClient.stream}. */
export interface StreamCallOptions {
  /** Overrides the client's maxRetries for this call (e.g. 0 before a fallback switch). */
  readonly maxRetries?: number;
  /** Extra headers for this call only. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Who is asking (e.g. 'compact' for a summarization call), for logs and debug events. Never
   * sent to the API. Compaction calls are exempt from the blocking-limit check.
   */
  readonly querySource?: string;
}
