/** The immutable per-iteration state of the loop. */
import type { MessageParam, Usage } from '../protocol/content.js';
import type { SharedContext } from '../tools/types.js';
import type { TransitionReason } from './reasons.js';
import type { UsageTotals } from './types.js';

// ---------------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------------

/**
 * Everything one iteration needs, rebuilt (never mutated) at each continue site.
 * Counters are per bound of SPEC §5 so each recovery path is limited independently.
 */
export interface LoopState {
  /** The history sent to the model (after the last compact boundary). Never mutated. */
  readonly messages: readonly MessageParam[];
  /**
   * uuid of the last message in `messages` (the parent of the next transcript record). Only the
   * last one is kept: a per-message array would be one more history copy per iteration.
   */
  readonly lastMessageUuid: string | undefined;
  readonly turnCount: number;
  readonly chainId: string;
  readonly depth: number;
  /** Why this state exists; undefined for the first iteration. */
  readonly transition: { readonly reason: TransitionReason } | undefined;
  /** The model used for the next call (switches to the fallback model for good). */
  readonly model: string;
  readonly shared: SharedContext;

  readonly maxOutputTokensRecoveryCount: number;
  readonly malformedToolUseRetryCount: number;
  readonly thinkingOnlyNudged: boolean;
  /** `pause_turn` continuations in this turn (bounded: see `PAUSE_TURN_CONTINUATION_LIMIT`). */
  readonly pauseTurnContinuations: number;
  /** The code-execution container the API last returned: the next request names it. */
  readonly container?: string | undefined;
  readonly hasAttemptedReactiveCompact: boolean;
  readonly stopHookActive: boolean;
  readonly stopHookBlockCount: number;
  readonly tokenBudgetContinuations: number;
  /** Output tokens of this user turn, and the increment of each budget continuation. */
  readonly turnOutputTokens: number;
  readonly tokenBudgetIncrements: readonly number[];
  /** Identical consecutive tool calls (name + input): the signature and its run length. */
  readonly repeatedCall: { readonly signature: string; readonly count: number } | undefined;

  readonly usage: UsageTotals;
  readonly costUsd: number;
  readonly lastAssistantText: string | undefined;
  /** Usage the API reported for the last response (the exact part of the context count)... */
  readonly lastUsage: Usage | undefined;
  /** ...which covers `messages[0 .. lastUsageCovers)`: the request plus the reply. */
  readonly lastUsageCovers: number;
}
