/**
 * The loop's public vocabulary: the events a consumer of `agentLoop()` sees, the typed terminal
 * and transition reasons (SPEC §3), and the immutable per-iteration `LoopState`.
 *
 * Design choice — model events are WRAPPED (`{ type: 'model', event }`) rather than spread into
 * this union: the assembly vocabulary (`message_start`, `block`, `message`, ...) would otherwise
 * collide with loop-level names (`assistant_message`), the set of loop event types stays stable
 * when assembly grows, and forwarding costs one small object per stream event (no copying).
 * `api_retry` / `stream_retry` are lifted to the top level because consumers act on them
 * (a `stream_retry` retracts partial text shown since the last `message_start`).
 */
import type { AssistantMessage, MessageParam, ToolResultBlock, ToolUseBlock } from '../protocol/content.js';
import type { AssemblyEvent } from '../assembly/types.js';
import type { ApiRetryEvent, DebugEvent, StreamRetryEvent } from '../transport/types.js';
import type { ToolEvent } from '../tools/types.js';
import type { RxAgentErrorKind } from '../errors.js';

export {
  TERMINAL_REASONS,
  TRANSITION_REASONS,
  isCancelledTerminal,
  isControlledTerminal,
  isErrorTerminal,
  isRecoveryTransition,
  type CancelledTerminalReason,
  type ControlledTerminalReason,
  type ErrorTerminalReason,
  type TerminalReason,
  type TransitionReason,
} from './reasons.js';
import type { TerminalReason, TransitionReason } from './reasons.js';

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

/** Carried by every event: `chainId` is new per user turn, `depth` is 0 then +1 per iteration. */
export interface QueryTracking {
  readonly chainId: string;
  readonly depth: number;
}

/** Why a user message entered the history. */
export type UserMessageReason =
  | 'prompt'
  | 'tool_results'
  | 'continuation'
  | 'malformed_tool_use_correction'
  | 'nudge'
  | 'stop_hook_feedback'
  | 'token_budget'
  | 'queued_input'
  | 'orphan_results';

/** The error of a failed run, flattened to data so it can be printed, serialized and compared. */
export interface LoopError {
  readonly kind: RxAgentErrorKind | 'max_output_tokens' | 'malformed_tool_use' | 'hook' | 'internal' | 'refusal';
  readonly message: string;
  /** What the API said beside the error (a refusal's `stop_details`). */
  readonly details?: unknown;
  readonly status?: number;
  /** The API's error type when there was one. */
  readonly errorType?: string;
}

/** The steps of one submitted input's life (see `createAgentRun`): queued, started, then exactly one ending. */
export type CommandStatus = 'queued' | 'started' | 'completed' | 'cancelled' | 'discarded';

/** Accumulated token usage of the whole run (all iterations, all API attempts that completed). */
export interface UsageTotals {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheCreationInputTokens: number;
  readonly cacheReadInputTokens: number;
}

/**
 * What shrank the history: the governor before a call ('auto', 'snip', 'microcompact'), the
 * retry after a prompt-too-long error ('reactive'), or the user ('manual').
 */
export type CompactTrigger = 'auto' | 'reactive' | 'manual' | 'snip' | 'microcompact';

type Tracked<T> = T & QueryTracking;

/**
 * Everything `agentLoop()` emits, each event tagged with its `QueryTracking`. The last one is always
 * exactly one `terminal`; switch on `type` (with `assertNever`) to handle them all.
 */
export type LoopEvent = Tracked<
  | {
      /** A new iteration is about to call the model. */
      readonly type: 'iteration_start';
      readonly turnCount: number;
      readonly model: string;
      /** Why this iteration exists; undefined for the first one. */
      readonly transition: TransitionReason | undefined;
    }
  | {
      /** A model stream event, wrapped (see the file head), plus the transport's debug events. */
      readonly type: 'model';
      readonly event: AssemblyEvent | DebugEvent;
    }
  | {
      /** A request failed before streaming and will be retried after a backoff. */
      readonly type: 'api_retry';
      readonly retry: ApiRetryEvent;
    }
  | {
      /** A stream broke mid-response: drop the partial text shown since the last `message_start`. */
      readonly type: 'stream_retry';
      readonly retry: StreamRetryEvent;
    }
  | {
      /** A complete assistant message, as it enters the history. */
      readonly type: 'assistant_message';
      readonly message: AssistantMessage;
      readonly uuid: string;
    }
  // Forwarded unchanged from the scheduler: derived from ToolEvent so the two cannot drift.
  | Extract<ToolEvent, { readonly type: 'tool_start' }>
  | Extract<ToolEvent, { readonly type: 'tool_progress' }>
  | {
      /** One call's result, as soon as it is known (may be before the response ends). */
      readonly type: 'tool_result';
      readonly toolUseId: string;
      readonly name: string;
      readonly result: ToolResultBlock;
      readonly durationMs: number;
      /** The tool's structured result for programs (not what the model sees); see `ToolOutcome.structured`. */
      readonly structured?: unknown;
    }
  | {
      /** A user message as it enters the history. `isMeta`: hidden from transcripts shown to people. */
      readonly type: 'user_message';
      readonly message: MessageParam & { readonly role: 'user' };
      readonly uuid: string;
      readonly reason: UserMessageReason;
      readonly isMeta?: boolean;
    }
  | {
      /** Messages consumers must remove (a failed attempt before a model fallback). */
      readonly type: 'tombstone';
      readonly uuids: readonly string[];
    }
  | {
      /** Something the consumer should know that does not stop the run (`code` for machines). */
      readonly type: 'warning';
      readonly message: string;
      readonly code?: string;
    }
  | {
      /** The history was shrunk; later requests start from the compacted view. */
      readonly type: 'compact_boundary';
      readonly trigger: CompactTrigger;
      readonly preTokens: number;
      readonly postTokens: number;
    }
  | {
      /** Recorded at every continue site, the last event of an iteration that goes on. */
      readonly type: 'transition';
      readonly reason: TransitionReason;
      /** The turnCount of the NEXT iteration. */
      readonly turnCount: number;
    }
  | {
      /** A step in the life of input submitted through `createAgentRun`. */
      readonly type: 'command_lifecycle';
      readonly id: string;
      readonly status: CommandStatus;
      /** On `completed`/`cancelled`: whether a model request carried the command. */
      readonly seenByModel?: boolean;
    }
  | TerminalEventBody
>;

/** The body of the `terminal` event: why the run ended, with its totals and the final history. */
export interface TerminalEventBody {
  readonly type: 'terminal';
  readonly reason: TerminalReason;
  readonly turnCount: number;
  readonly usage: UsageTotals;
  readonly costUsd: number;
  readonly durationMs: number;
  readonly error?: LoopError;
  /** The text of the last assistant message, when there is one. */
  readonly lastAssistantText?: string;
  /** The final history (what a resumed or child loop would start from). */
  readonly messages?: readonly MessageParam[];
  /**
   * `tool_deferred`: the call a PreToolUse hook deferred. It was not run and has no result:
   * `messages` ends with the assistant message holding it. To resume, append a user message
   * with its `tool_result` (a resumed transcript without one gets a synthetic error result).
   */
  readonly deferredToolUse?: ToolUseBlock;
}

/** The `type` tag of every loop event. */
export type LoopEventType = LoopEvent['type'];
/** The loop event with the given `type`, e.g. `LoopEventOf<'tool_result'>`. */
export type LoopEventOf<T extends LoopEventType> = Extract<LoopEvent, { type: T }>;
/** The last event of every run. */
export type TerminalEvent = LoopEventOf<'terminal'>;

/** Narrows an event to the `terminal` one (e.g. for `takeWhile` / `filter`). */
export function isTerminalEvent(event: LoopEvent): event is TerminalEvent {
  return event.type === 'terminal';
}

export type { LoopState } from './state.js';
