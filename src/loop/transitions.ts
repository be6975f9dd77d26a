/**
 * Every continue site builds a complete new `LoopState` here, named after its transition
 * reason. Each function sets every field it changes on a copy (`stateWith`: a literal, not a
 * spread); the rest is carried over unchanged, and `depth` grows by one for every new iteration
 * (SPEC §2 step 2).
 */
import type { MessageParam } from '../protocol/content.js';
import type { SharedContext } from '../tools/types.js';
import { stateWith, type LoopStateDraft } from './stateWith.js';
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

/** The next iteration's state, drafted: the history appended, one level deeper, why it exists. */
function advance(state: LoopState, reason: TransitionReason, history: Appended | undefined): LoopStateDraft {
  const next = stateWith(state);
  if (history) {
    next.messages = history.messages;
    next.lastMessageUuid = history.lastUuid;
  }
  next.depth = state.depth + 1;
  next.transition = { reason };
  return next;
}

/** A tool batch was fed back: a new turn, the per-turn recovery counters start again. */
export function nextTurn(state: LoopState, history: Appended, shared: SharedContext): LoopState {
  const next = advance(state, 'next_turn', history);
  next.turnCount = state.turnCount + 1;
  next.shared = shared;
  return freshTurn(next);
}

/** `FRESH_TURN_COUNTERS` written into a draft (assignments: an `Object.assign` takes the slow path). */
function freshTurn(next: LoopStateDraft): LoopStateDraft {
  next.maxOutputTokensRecoveryCount = FRESH_TURN_COUNTERS.maxOutputTokensRecoveryCount;
  next.malformedToolUseRetryCount = FRESH_TURN_COUNTERS.malformedToolUseRetryCount;
  next.thinkingOnlyNudged = FRESH_TURN_COUNTERS.thinkingOnlyNudged;
  next.pauseTurnContinuations = FRESH_TURN_COUNTERS.pauseTurnContinuations;
  next.hasAttemptedReactiveCompact = FRESH_TURN_COUNTERS.hasAttemptedReactiveCompact;
  next.stopHookActive = FRESH_TURN_COUNTERS.stopHookActive;
  next.stopHookBlockCount = FRESH_TURN_COUNTERS.stopHookBlockCount;
  return next;
}

export function maxOutputTokensRecovery(state: LoopState, history: Appended): LoopState {
  const next = advance(state, 'max_output_tokens_recovery', history);
  next.maxOutputTokensRecoveryCount = state.maxOutputTokensRecoveryCount + 1;
  return next;
}

export function malformedToolUseRetry(state: LoopState, history: Appended): LoopState {
  const next = advance(state, 'malformed_tool_use_retry', history);
  next.malformedToolUseRetryCount = state.malformedToolUseRetryCount + 1;
  return next;
}

export function thinkingOnlyNudge(state: LoopState, history: Appended): LoopState {
  const next = advance(state, 'thinking_only_nudge', history);
  next.thinkingOnlyNudged = true;
  return next;
}

/** The flag survives Stop-hook re-entries: one reactive compaction per user turn. */
export function reactiveCompactRetry(state: LoopState, history: Appended): LoopState {
  const next = advance(state, 'reactive_compact_retry', history);
  next.hasAttemptedReactiveCompact = true;
  return next;
}

export function stopHookBlocking(state: LoopState, history: Appended): LoopState {
  const next = advance(state, 'stop_hook_blocking', history);
  next.turnCount = state.turnCount + 1;
  next.stopHookActive = true;
  next.stopHookBlockCount = state.stopHookBlockCount + 1;
  return next;
}

export function tokenBudgetContinuation(state: LoopState, history: Appended, increment: number): LoopState {
  const next = advance(state, 'token_budget_continuation', history);
  next.tokenBudgetContinuations = state.tokenBudgetContinuations + 1;
  next.tokenBudgetIncrements = [...state.tokenBudgetIncrements, increment];
  return next;
}

/** The paused content went back as is: the same turn, one more API attempt (SPEC §14). */
export function pauseTurnContinuation(state: LoopState, history: Appended): LoopState {
  const next = advance(state, 'pause_turn_continuation', history);
  next.pauseTurnContinuations = state.pauseTurnContinuations + 1;
  return next;
}
