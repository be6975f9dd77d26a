/**
 * The seams other modules plug into. Each is a small interface with a pass-through default in
 * the loop, so the loop works with none of them configured.
 *
 * - `ContextGovernor` (src/context/): token accounting and compaction before each model call,
 *   plus one reactive compaction after a prompt-too-long error.
 * - `TranscriptSink` (src/session/): every message, tombstone and boundary, in order; the loop
 *   awaits `append` before the next model request so a crash never loses what the model saw.
 * - Hooks (src/hooks/ implements them from settings files): plain async functions.
 */
import { of, type Observable } from 'rxjs';
import type { MaybeAsync } from '../../operators/internal/fromMaybeAsync.js';
import type { AssistantMessage, MessageParam, ToolResultBlock, ToolUseBlock, Usage } from '../protocol/content.js';
import type { CompactTrigger, QueryTracking, UserMessageReason } from './types.js';

// ---------------------------------------------------------------------------------------------
// Context governance (SPEC §6)
// ---------------------------------------------------------------------------------------------

/** One shrinking of the history, with its token counts before and after (an event and a transcript record). */
export interface CompactBoundary {
  readonly trigger: CompactTrigger;
  readonly preTokens: number;
  readonly postTokens: number;
}

/** What the governor sees before a call: the history, the model's limits and the last reported usage. */
export interface GovernorInput extends QueryTracking {
  /** The history about to be sent (after the last boundary). */
  readonly messages: readonly MessageParam[];
  readonly model: string;
  readonly maxOutputTokens: number;
  /** Usage the API reported for the last response, if any (the cheap, exact part of the count). */
  readonly lastUsage: Usage | undefined;
  /** Index in `messages` after which messages were added since `lastUsage` was reported. */
  readonly messagesSinceUsage: number;
  readonly signal: AbortSignal;
}

/**
 * What the governor did besides its decision, for the loop to emit in this order before acting
 * on the decision: boundaries of the cheap layers (trigger 'snip' / 'microcompact'), warnings
 * (e.g. code 'autocompact_disabled' when the circuit breaker trips, 'tool_result_not_stored').
 */
export type GovernorNotice =
  | { readonly type: 'compact_boundary'; readonly boundary: CompactBoundary }
  | { readonly type: 'warning'; readonly message: string; readonly code: string };

interface WithNotices {
  readonly notices?: readonly GovernorNotice[];
}

/** The governor's answer before a call: send, send compacted, or stop the run (with notices to emit first). */
export type GovernorDecision = WithNotices &
  (
    /** Send `messages` as they are (they may be a cheaper view, e.g. truncated tool results). */
    | { readonly type: 'ok'; readonly messages: readonly MessageParam[] }
    /** History was compacted: the loop continues with `messages` and emits the boundary. */
    | { readonly type: 'compacted'; readonly messages: readonly MessageParam[]; readonly boundary: CompactBoundary }
    /** Over the blocking line and nothing freed enough: terminal `blocking_limit`, no request. */
    | { readonly type: 'blocking_limit'; readonly message: string }
    /** Compaction refilled at once: terminal `rapid_refill_breaker`. */
    | { readonly type: 'rapid_refill_breaker'; readonly message: string }
  );

/** The answer of a reactive compaction: the compacted history, or why it could not be done. */
export type ReactiveCompactResult = WithNotices &
  (
    | { readonly type: 'compacted'; readonly messages: readonly MessageParam[]; readonly boundary: CompactBoundary }
    | { readonly type: 'failed'; readonly message: string }
  );

/** Keeps each request within the model's context window (SPEC §6); `createContextGovernor` is the real one. */
export interface ContextGovernor {
  /** Before every model call (SPEC §2 step 3). Emits exactly one decision, then completes. */
  beforeCall(input: GovernorInput): Observable<GovernorDecision>;
  /**
   * After a prompt-too-long error, at most once per user turn (kept across Stop-hook re-entries).
   * A `failed` result (or no governor) ends the loop with `prompt_too_long`.
   */
  reactiveCompact(input: GovernorInput & { readonly error: string }): Observable<ReactiveCompactResult>;
}

/** The default: sends the history unchanged and cannot compact. */
export const passThroughGovernor: ContextGovernor = {
  beforeCall: (input) => of<GovernorDecision>({ type: 'ok', messages: input.messages }),
  reactiveCompact: () => of<ReactiveCompactResult>({ type: 'failed', message: 'No context governor is configured, so the conversation could not be compacted.' }),
};

// ---------------------------------------------------------------------------------------------
// Transcript (SPEC §11)
// ---------------------------------------------------------------------------------------------

/** What the loop hands a transcript sink, in history order: messages, tombstones and compact boundaries. */
export type TranscriptRecord = QueryTracking & { readonly timestamp: number } & (
    | { readonly type: 'assistant'; readonly uuid: string; readonly parentUuid: string | undefined; readonly message: AssistantMessage }
    | {
        readonly type: 'user';
        readonly uuid: string;
        readonly parentUuid: string | undefined;
        readonly message: MessageParam;
        readonly reason: UserMessageReason;
        readonly isMeta: boolean;
      }
    | { readonly type: 'tombstone'; readonly uuids: readonly string[] }
    | { readonly type: 'compact_boundary'; readonly boundary: CompactBoundary; readonly messages: readonly MessageParam[] }
  );

/** Where a run's records go (`createTranscriptSink` writes JSONL session files). */
export interface TranscriptSink {
  /** Called with the records of one iteration (a tool-use response's own record first, as soon as it is complete); awaited before the next model request. */
  append(records: readonly TranscriptRecord[]): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Hooks
// ---------------------------------------------------------------------------------------------

/** What every loop-level hook may answer. An empty object means "go on". */
export interface HookDecision {
  /** Block: for Stop hooks the text goes back to the model as feedback; elsewhere it stops. */
  readonly block?: string;
  /** Stop the loop now with a controlled terminal, whatever else was decided. */
  readonly preventContinuation?: string;
  /** Shown to the consumer as `warning` events. */
  readonly warnings?: readonly string[];
}

/** What a Stop hook sees when the model ends its turn without tool calls. */
export interface StopHookInput extends QueryTracking {
  readonly messages: readonly MessageParam[];
  readonly lastAssistantMessage: AssistantMessage;
  /** True when this stop follows a re-entry caused by a blocking Stop hook. */
  readonly stopHookActive: boolean;
  readonly signal: AbortSignal;
}
/**
 * May answer synchronously, with a Promise, or with an Observable (its first value): a `cold()`
 * answer draws the hook's timing in a marble spec.
 */
export type StopHook = (input: StopHookInput) => MaybeAsync<HookDecision>;

/** What a PostToolBatch hook sees once every call of a response has its result. */
export interface PostToolBatchHookInput extends QueryTracking {
  readonly toolUses: readonly ToolUseBlock[];
  readonly results: readonly ToolResultBlock[];
  readonly messages: readonly MessageParam[];
  readonly signal: AbortSignal;
}
/** Runs after each tool batch; `block` or `preventContinuation` ends the loop `hook_stopped` before the next call. */
export type PostToolBatchHook = (input: PostToolBatchHookInput) => MaybeAsync<HookDecision>;

/** What a UserPromptSubmit hook sees before a new prompt enters the history. */
export interface UserPromptSubmitHookInput extends QueryTracking {
  readonly prompt: MessageParam;
  readonly signal: AbortSignal;
}
/** `block` rejects the prompt (terminal `hook_stopped`); `additionalContext` is added as a hidden message. */
export type UserPromptSubmitHook = (input: UserPromptSubmitHookInput) => MaybeAsync<UserPromptSubmitDecision>;
/** A UserPromptSubmit hook's answer: a `HookDecision` plus context to add to the prompt. */
export type UserPromptSubmitDecision = HookDecision & { readonly additionalContext?: string };

/** The loop-level hooks, each optional (the tool-level ones are `ToolHooks`). */
export interface LoopHooks {
  readonly stop?: StopHook;
  readonly postToolBatch?: PostToolBatchHook;
  readonly userPromptSubmit?: UserPromptSubmitHook;
}
