/**
 * The typed error family. Every failure the library reports is one of these, discriminated by
 * `kind`, so consumers switch on data instead of parsing messages.
 *
 * Messages never contain the API key: anything echoed from a request goes through `redact`.
 */
import type { ApiErrorType } from './protocol/errors.js';

/** The `kind` of every library error, to switch on instead of parsing messages. */
export type RxAgentErrorKind =
  | 'api'
  | 'connection'
  | 'stream_protocol'
  | 'stream_idle_timeout'
  /** A response outlived its total deadline (`requestTimeoutMs`) while bytes kept coming. */
  | 'request_timeout'
  | 'assembly'
  | 'tool'
  | 'configuration'
  | 'aborted'
  /** Transcript persistence (src/session/): locked, missing, or a failed write. */
  | 'session'
  /** An Agent call over the tree's subagent caps (running at once, or started per run). */
  | 'subagent_limit';

/** Base of every error the library reports: a `kind` to switch on and whether a retry may help. */
export abstract class RxAgentError extends Error {
  abstract readonly kind: RxAgentErrorKind;
  /** Whether a retry of the same request may succeed. */
  abstract readonly retryable: boolean;
}

/** An HTTP error status, or an SSE `error` event inside a 200 stream (its twin). */
export class ApiError extends RxAgentError {
  override readonly name = 'ApiError';
  readonly kind = 'api' as const;
  constructor(
    readonly status: number | undefined,
    /** The API's error type; `api_error` when the body said nothing usable. */
    readonly errorType: ApiErrorType | (string & {}),
    message: string,
    readonly retryable: boolean,
    readonly requestId?: string,
    /** The wait the server asked for, from retry-after / retry-after-ms, in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
  /** Prompt too long: HTTP 413, or a 400 whose message says the prompt is too long. */
  get isPromptTooLong(): boolean {
    return (
      this.status === 413 ||
      this.errorType === 'request_too_large' ||
      /prompt is too long|too many tokens|context.{0,20}(length|window)/i.test(this.message)
    );
  }
}

/** The connection failed (refused, reset, closed) before or during the response. */
export class ConnectionError extends RxAgentError {
  override readonly name = 'ConnectionError';
  readonly kind = 'connection' as const;
  readonly retryable = true;
  constructor(message: string, readonly code?: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** How a stream broke the protocol (the `type` of a `StreamProtocolError`). */
export type StreamProtocolErrorType =
  | 'invalid_json'
  | 'invalid_event'
  | 'out_of_order'
  | 'ended_before_message_stop'
  | 'buffer_overflow';

/** The SSE body broke the protocol: not JSON, events out of order, ended early. */
export class StreamProtocolError extends RxAgentError {
  override readonly name = 'StreamProtocolError';
  readonly kind = 'stream_protocol' as const;
  constructor(
    readonly type: StreamProtocolErrorType,
    message: string,
    /** A dropped or garbled stream may well work on a second attempt. */
    readonly retryable = true,
  ) {
    super(message);
  }
}

/** No bytes arrived for `idleTimeoutMs`. */
export class StreamIdleTimeout extends RxAgentError {
  override readonly name = 'StreamIdleTimeout';
  readonly kind = 'stream_idle_timeout' as const;
  readonly retryable = true;
  constructor(readonly idleTimeoutMs: number) {
    super(`no data received from the model for ${idleTimeoutMs} ms`);
  }
}

/**
 * One HTTP attempt did not finish its response within `requestTimeoutMs`, although bytes (pings,
 * say) kept arriving so the idle timeout never fired. Retried like an idle timeout.
 */
export class RequestTimeout extends RxAgentError {
  override readonly name = 'RequestTimeout';
  readonly kind = 'request_timeout' as const;
  readonly retryable = true;
  constructor(readonly requestTimeoutMs: number) {
    super(`the model's response did not finish within ${requestTimeoutMs} ms (requestTimeoutMs)`);
  }
}

/** Which rule of the stream's event order an `AssemblyError` reports. */
export type AssemblyErrorType =
  | 'delta_for_unknown_block'
  | 'stop_without_start'
  | 'duplicate_message_start'
  | 'event_before_message_start'
  | 'delta_type_mismatch'
  | 'duplicate_block_start'
  | 'event_after_message_stop'
  | 'block_not_stopped';

/** Stream events that cannot be folded into a message. */
export class AssemblyError extends RxAgentError {
  override readonly name = 'AssemblyError';
  readonly kind = 'assembly' as const;
  readonly retryable = true;
  constructor(readonly type: AssemblyErrorType, message: string) {
    super(message);
  }
}

/** A mistake in how the library was set up (bad hook rewrite, invalid option). */
export class ConfigurationError extends RxAgentError {
  override readonly name = 'ConfigurationError';
  readonly kind = 'configuration' as const;
  readonly retryable = false;
}

/** Which subagent cap an Agent call ran into. */
export type SubagentLimit = 'concurrent' | 'per_run';

/**
 * An Agent call refused because the agent tree is at a cap: `max` subagents already running at
 * once (`concurrent`), or `max` already started in this run (`per_run`). The Agent call ends in
 * an error result carrying this message; the run goes on.
 */
export class SubagentLimitError extends RxAgentError {
  override readonly name = 'SubagentLimitError';
  readonly kind = 'subagent_limit' as const;
  /** A concurrent cap frees up when a running subagent ends; a per-run cap never does. */
  readonly retryable: boolean;
  constructor(
    readonly limit: SubagentLimit,
    readonly max: number,
  ) {
    super(
      limit === 'concurrent'
        ? `${subagents(max)} ${max === 1 ? 'is' : 'are'} already running, the most this run allows at once. Wait for one to finish before starting another, or do this task yourself.`
        : `this run has already started ${subagents(max)}, the most it allows. Do the remaining work yourself.`,
    );
    this.retryable = limit === 'concurrent';
  }
}

const subagents = (n: number): string => `${n} subagent${n === 1 ? '' : 's'}`;

/** Replace every occurrence of a secret in a text. */
export function redact(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join('[redacted]');
}
