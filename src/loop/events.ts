/** Builders for loop events and the items an iteration emits into `expand`. */
import type { MessageParam, ToolUseBlock } from '../protocol/content.js';
import type { LoopError, LoopEvent, LoopState, QueryTracking, TerminalReason } from './types.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type LoopEventBody = DistributiveOmit<LoopEvent, keyof QueryTracking>;

/** What one iteration emits: events for the consumer, and at most one `continue` (its last item). */
export type IterationOutput =
  | { readonly kind: 'event'; readonly event: LoopEvent }
  | { readonly kind: 'continue'; readonly state: LoopState };

export function eventOf(tracking: QueryTracking, body: LoopEventBody): IterationOutput {
  return { kind: 'event', event: { ...body, chainId: tracking.chainId, depth: tracking.depth } as LoopEvent };
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
export function terminalOf(state: LoopState, durationMs: number, facts: TerminalFacts): IterationOutput {
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
  });
}
