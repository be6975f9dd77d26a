/**
 * Every continue site builds a complete new `LoopState` here, named after its transition
 * reason. Each function lists every field it changes; the rest is carried over unchanged, and
 * `depth` grows by one for every new iteration (SPEC §2 step 2).
 */
import type { MessageParam } from '../protocol/content.js';
import type { SharedContext } from '../tools/types.js';
import type { LoopState, TransitionReason } from './types.js';

export interface Appended {
  readonly messages: readonly MessageParam[];
  readonly lastUuid: string | undefined;
}

/**
 * The recovery counters that belong to one turn: every new turn (and the first) starts from
 * these, so each bound of SPEC §5 applies per turn.
 */
export const FRESH_TURN_COUNTERS = {
  maxOutputTokensRecoveryCount: 0,
  malformedToolUseRetryCount: 0,
  thinkingOnlyNudged: false,
  pauseTurnContinuations: 0,
  hasAttemptedReactiveCompact: false,
  stopHookActive: false,
  stopHookBlockCount: 0,
} as const satisfies Partial<LoopState>;

function advance(state: LoopState, reason: TransitionReason, history: Appended | undefined): LoopState {
  return {
    ...state,
    messages: history ? history.messages : state.messages,
    lastMessageUuid: history ? history.lastUuid : state.lastMessageUuid,
    depth: state.depth + 1,
    transition: { reason },
  };
}

/** A tool batch was fed back: a new turn, the per-turn recovery counters start again. */
export function nextTurn(state: LoopState, history: Appended, shared: SharedContext): LoopState {
  return {
    ...advance(state, 'next_turn', history),
    turnCount: state.turnCount + 1,
    shared,
    ...FRESH_TURN_COUNTERS,
  };
}

export function maxOutputTokensRecovery(state: LoopState, history: Appended): LoopState {
  return {
    ...advance(state, 'max_output_tokens_recovery', history),
    maxOutputTokensRecoveryCount: state.maxOutputTokensRecoveryCount + 1,
  };
}

export function malformedToolUseRetry(state: LoopState, history: Appended): LoopState {
  return {
    ...advance(state, 'malformed_tool_use_retry', history),
    malformedToolUseRetryCount: state.malformedToolUseRetryCount + 1,
  };
}

export function thinkingOnlyNudge(state: LoopState, history: Appended): LoopState {
  return { ...advance(state, 'thinking_only_nudge', history), thinkingOnlyNudged: true };
}

/** The flag survives Stop-hook re-entries: one reactive compaction per user turn. */
export function reactiveCompactRetry(state: LoopState, history: Appended): LoopState {
  return { ...advance(state, 'reactive_compact_retry', history), hasAttemptedReactiveCompact: true };
}

export function stopHookBlocking(state: LoopState, history: Appended): LoopState {
  return {
    ...advance(state, 'stop_hook_blocking', history),
    turnCount: state.turnCount + 1,
    stopHookActive: true,
    stopHookBlockCount: state.stopHookBlockCount + 1,
  };
}

export function tokenBudgetContinuation(state: LoopState, history: Appended, increment: number): LoopState {
  return {
    ...advance(state, 'token_budget_continuation', history),
    tokenBudgetContinuations: state.tokenBudgetContinuations + 1,
    tokenBudgetIncrements: [...state.tokenBudgetIncrements, increment],
  };
}

/** The paused content went back as is: the same turn, one more API attempt (SPEC §14). */
export function pauseTurnContinuation(state: LoopState, history: Appended): LoopState {
  return {
    ...advance(state, 'pause_turn_continuation', history),
    pauseTurnContinuations: state.pauseTurnContinuations + 1,
  };
}
