/**
 * Builders for loop events and the items an iteration hands to `expand`.
 *
 * Every event is built as one object literal with its tracking fields last, so each event type
 * has one fixed shape (V8 keeps the sites that read them monomorphic), and the hot ones
 * (`model`, tool events) are built without spreading a body into a second object.
 */
import type { AssemblyEvent } from '../assembly/types.js';
import type { AssistantMessage, MessageParam, ToolResultBlock, ToolUseBlock } from '../protocol/content.js';
import type { DebugEvent } from '../transport/types.js';
import type { TranscriptRecord } from './seams.js';
import { NOTHING_SENT, type SentHistory } from './sentHistory.js';
import type { LoopError, LoopEvent, LoopEventOf, LoopState, QueryTracking, TerminalReason, TransitionReason, UserMessageReason } from './types.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type LoopEventBody = DistributiveOmit<LoopEvent, keyof QueryTracking>;

/**
 * The one item of an iteration that is not an event: go on with `state`. `records` are the
 * transcript records not yet written; the next iteration writes them before its request.
 * `sent` is the history as the last request sent it, which the next request prepares from.
 */
export interface Continue {
  readonly type: 'continue';
  readonly state: LoopState;
  readonly records: readonly TranscriptRecord[];
  readonly sent: SentHistory;
}

/** What one iteration emits: events for the consumer, and at most one `Continue` (its last item). */
export type IterationOutput = LoopEvent | Continue;

/**
 * Where an iteration hands the events it makes in bulk (the model phase's, one per stream event):
 * straight to the loop's output, in their frame, instead of down the iteration's operator chain.
 */
export type EventSink = (event: LoopEvent) => void;

export function continueWith(state: LoopState, records: readonly TranscriptRecord[] = [], sent: SentHistory = NOTHING_SENT): Continue {
  return { type: 'continue', state, records, sent };
}

export function isContinue(out: IterationOutput): out is Continue {
  return out.type === 'continue';
}

/** For the rare events: the body plus the tracking fields. */
export function eventOf(tracking: QueryTracking, body: LoopEventBody): LoopEvent {
  return { ...body, chainId: tracking.chainId, depth: tracking.depth } as LoopEvent;
}

/*
 * The events of every iteration, built as literals in the key order `eventOf` gives them (the
 * body's keys, then the tracking fields): `eventOf` spreads bodies of every shape into a new
 * object, a megamorphic copy on each call.
 */

export function iterationStartEvent(state: LoopState): LoopEventOf<'iteration_start'> {
  return { type: 'iteration_start', turnCount: state.turnCount, model: state.model, transition: state.transition?.reason, chainId: state.chainId, depth: state.depth };
}

/** `next`'s own turnCount and reason, tracked as the iteration that ends (`t`). */
export function transitionEvent(t: QueryTracking, reason: TransitionReason, turnCount: number): LoopEventOf<'transition'> {
  return { type: 'transition', reason, turnCount, chainId: t.chainId, depth: t.depth };
}

export function userMessageEvent(
  t: QueryTracking,
  message: MessageParam & { readonly role: 'user' },
  uuid: string,
  reason: UserMessageReason,
  isMeta: boolean,
): LoopEventOf<'user_message'> {
  return { type: 'user_message', message, uuid, reason, isMeta, chainId: t.chainId, depth: t.depth };
}

export function modelEvent(t: QueryTracking, event: AssemblyEvent | DebugEvent): LoopEventOf<'model'> {
  return { type: 'model', event, chainId: t.chainId, depth: t.depth };
}

export function toolStartEvent(t: QueryTracking, toolUseId: string, name: string, input: unknown): LoopEventOf<'tool_start'> {
  return { type: 'tool_start', toolUseId, name, input, chainId: t.chainId, depth: t.depth };
}

export function toolProgressEvent(t: QueryTracking, toolUseId: string, name: string, data: unknown): LoopEventOf<'tool_progress'> {
  return { type: 'tool_progress', toolUseId, name, data, chainId: t.chainId, depth: t.depth };
}

export function toolResultEvent(
  t: QueryTracking,
  toolUseId: string,
  name: string,
  result: ToolResultBlock,
  durationMs: number,
  structured?: unknown,
): LoopEventOf<'tool_result'> {
  const event = { type: 'tool_result' as const, toolUseId, name, result, durationMs, chainId: t.chainId, depth: t.depth };
  return structured === undefined ? event : { ...event, structured };
}

export function assistantMessageEvent(t: QueryTracking, message: AssistantMessage, uuid: string): LoopEventOf<'assistant_message'> {
  return { type: 'assistant_message', message, uuid, chainId: t.chainId, depth: t.depth };
}

export function warningEvent(t: QueryTracking, message: string, code?: string): LoopEventOf<'warning'> {
  return code === undefined
    ? { type: 'warning', message, chainId: t.chainId, depth: t.depth }
    : { type: 'warning', message, code, chainId: t.chainId, depth: t.depth };
}

/** How a run ends, beyond what the state already says. */
export interface TerminalFacts {
  readonly reason: TerminalReason;
  readonly error?: LoopError | undefined;
  /** The final history; the state's own when omitted. */
  readonly messages?: readonly MessageParam[];
  readonly deferredToolUse?: ToolUseBlock | undefined;
}

/**
 * The terminal event, built in one place for every ending (setup, decisions, setup failures) so
 * its totals and optional fields cannot drift between them.
 */
export function terminalOf(state: LoopState, durationMs: number, facts: TerminalFacts): LoopEventOf<'terminal'> {
  return eventOf(state, {
    type: 'terminal',
    reason: facts.reason,
    turnCount: state.turnCount,
    usage: state.usage,
    costUsd: state.costUsd,
    durationMs,
    ...(facts.error ? { error: facts.error } : {}),
    ...(state.lastAssistantText !== undefined ? { lastAssistantText: state.lastAssistantText } : {}),
    messages: facts.messages ?? state.messages,
    ...(facts.deferredToolUse ? { deferredToolUse: facts.deferredToolUse } : {}),
  }) as LoopEventOf<'terminal'>;
}
