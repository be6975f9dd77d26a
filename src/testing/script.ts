/**
 * The script a `ScriptedModelServer` plays: one `ScriptedResponse` per incoming request, in
 * order, or chosen by a function of the request (e.g. parent vs child agents by system prompt).
 */
import type { StopReason, Usage } from '../protocol/content.js';
import type { MessagesRequest } from '../protocol/request.js';

/** Timing of one block's events. All delays are real milliseconds on the server side. */
export interface BlockTiming {
  /** Wait before `content_block_start`. */
  readonly delayMs?: number;
  /** Wait before each delta. */
  readonly deltaDelayMs?: number;
  /** Characters per text/thinking delta, or per input_json_delta for tools (default: one delta). */
  readonly chunkSize?: number;
  /** Wait before `content_block_stop`. */
  readonly stopDelayMs?: number;
  /**
   * Hold `content_block_start` (and so everything after it) until this settles, after `delayMs`:
   * a block that must come after an event of the test's (a tool's result was printed).
   */
  readonly startAfter?: PromiseLike<unknown>;
}

/** One content block of a scripted reply, with its timing. */
export type ScriptedBlock = BlockTiming &
  (
    | { readonly type: 'text'; readonly text: string }
    | { readonly type: 'thinking'; readonly thinking: string; readonly signature?: string }
    | { readonly type: 'redacted_thinking'; readonly data: string }
    | {
        readonly type: 'tool_use';
        readonly id?: string;
        readonly name: string;
        /** Sent as JSON; `rawInput` wins when both are given (to send input that is not JSON). */
        readonly input?: Readonly<Record<string, unknown>>;
        readonly rawInput?: string;
      }
    /** A server tool call (web search, code execution, ...): streamed like tool_use, never run by the client. */
    | { readonly type: 'server_tool_use'; readonly id?: string; readonly name: string; readonly input?: Readonly<Record<string, unknown>> }
    /**
     * Any other block, sent whole in its `content_block_start` (server tool results, MCP blocks,
     * container_upload, compaction, a type newer than the client): `block` is the block as is.
     */
    | { readonly type: 'server_block'; readonly block: Readonly<Record<string, unknown>> }
  );

/** A streamed reply: its blocks, stop reason, usage and any stream fault to inject. */
export interface ScriptedMessage {
  readonly kind: 'message';
  readonly blocks: readonly ScriptedBlock[];
  /** Default: 'tool_use' when a tool_use block is present, else 'end_turn'. */
  readonly stopReason?: StopReason;
  readonly stopSequence?: string | null;
  readonly usage?: Usage;
  readonly id?: string;
  readonly model?: string;
  /** Complete blocks sent inside `message_start` (programmatic tool calling); streamed blocks follow them. */
  readonly prefilled?: readonly Readonly<Record<string, unknown>>[];
  /** `message_delta` extras as the API sends them: the code-execution container, stop details, context management. */
  readonly container?: { readonly id: string; readonly expires_at?: string };
  readonly stopDetails?: unknown;
  readonly contextManagement?: unknown;
  /** Wait before `message_delta`/`message_stop`. */
  readonly endDelayMs?: number;
  /**
   * Hold `message_delta`/`message_stop` (in JSON mode: the whole answer) until this settles, after
   * `endDelayMs`. A test orders the end of a response after an event of its own (a tool started,
   * another request arrived) instead of after a duration, which a busy machine can outrun.
   */
  readonly endAfter?: PromiseLike<unknown>;
  /** Response headers (e.g. request-id). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Fault: close the connection after this many SSE events were written. */
  readonly cutAfterEvents?: number;
  /** Fault: after this many events, send nothing more and keep the connection open. */
  readonly stallAfterEvents?: number;
  /** Fault: after this many events, send an SSE `error` event and end the stream. */
  readonly errorAfterEvents?: { readonly events: number; readonly type: string; readonly message: string };
  /** Fault: omit `message_stop` (the body ends after `message_delta`). */
  readonly omitMessageStop?: boolean;
  /** Write the SSE bytes in chunks of this many bytes (default: one write per event). */
  readonly byteChunkSize?: number;
}

/** An HTTP error reply instead of a stream (e.g. 429 or 529, to exercise retries). */
export interface ScriptedHttpError {
  readonly kind: 'http_error';
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as is (e.g. a proxy's HTML page); an object as JSON. Default: API error shape. */
  readonly body?: string | Readonly<Record<string, unknown>>;
  /** For the default body. */
  readonly errorType?: string;
  readonly message?: string;
}

/**
 * Raw SSE text, written as is, for protocol-level faults (garbage, unknown events, ...) and for
 * replaying recorded streams; byte chunks may split a character (as a network may).
 */
export interface ScriptedRaw {
  readonly kind: 'raw';
  readonly chunks: readonly (string | Uint8Array | { readonly text: string | Uint8Array; readonly delayMs: number })[];
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Close without ending the response properly. */
  readonly destroy?: boolean;
  /** After the chunks, keep the response open (nothing more sent) until the client goes away. */
  readonly holdOpen?: boolean;
}

/** Send headers, then nothing, until the client gives up. */
export interface ScriptedStall {
  readonly kind: 'stall';
}

/** What the server answers to one request. */
export type ScriptedResponse = ScriptedMessage | ScriptedHttpError | ScriptedRaw | ScriptedStall;

/** One request as the server received it, for assertions on what the client sent. */
export interface RecordedRequest {
  readonly index: number;
  readonly receivedAt: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed body (undefined when it was not a JSON object). */
  readonly body: MessagesRequest | undefined;
  readonly rawBody: string;
  /** The validator's verdict: empty when the request is valid. */
  readonly validationErrors: readonly string[];
  /** Set when the client closed the connection before the response ended. */
  closedByClient: boolean;
  /** When the response's connection finished or closed (ms since epoch); unset while it is open. */
  endedAt?: number;
}

/**
 * An array is played in order, one entry per valid request. A function gets each valid request
 * and the 0-based number of responses played so far; returning undefined means the script is
 * exhausted.
 */
export type Script =
  | readonly ScriptedResponse[]
  | ((request: MessagesRequest, index: number) => ScriptedResponse | undefined);
