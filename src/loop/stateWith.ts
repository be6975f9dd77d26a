/**
 * The one way the loop copies a `LoopState`: an object literal that lists every key, in the
 * interface's order, instead of `{ ...state, ... }`.
 *
 * Why: on Node 20 a spread of the state (two dozen keys) misses V8's CloneObjectIC often enough
 * on the iteration's path that it takes the generic copy (a dictionary-mode walk), microseconds
 * per transition; and spreads that add keys in different orders (`container` was appended by the
 * first response) gave the state several hidden classes, so every site that reads it was
 * polymorphic. A literal has one shape and compiles to a few stores.
 *
 * The copy is a draft: the caller assigns what changes, then hands it on as a `LoopState`
 * (nobody writes to it after that). `container` is always present (undefined when no
 * code-execution container was named) so every state has the same shape; nothing tells an
 * absent key from an undefined one (`modelPhase` sends `container` only when it is defined).
 *
 * `satisfies Record<keyof LoopState, unknown>`: a key added to `LoopState` and not here fails
 * the type check instead of being dropped silently.
 */
import type { LoopState } from './state.js';

/** A state being built: writable (every key is present, `container` included). */
export type LoopStateDraft = { -readonly [K in keyof LoopState]: LoopState[K] };

export function stateWith(s: LoopState): LoopStateDraft {
  const draft = {
    messages: s.messages,
    lastMessageUuid: s.lastMessageUuid,
    turnCount: s.turnCount,
    chainId: s.chainId,
    depth: s.depth,
    transition: s.transition,
    model: s.model,
    shared: s.shared,
    maxOutputTokensRecoveryCount: s.maxOutputTokensRecoveryCount,
    malformedToolUseRetryCount: s.malformedToolUseRetryCount,
    thinkingOnlyNudged: s.thinkingOnlyNudged,
    pauseTurnContinuations: s.pauseTurnContinuations,
    container: s.container,
    hasAttemptedReactiveCompact: s.hasAttemptedReactiveCompact,
    stopHookActive: s.stopHookActive,
    stopHookBlockCount: s.stopHookBlockCount,
    tokenBudgetContinuations: s.tokenBudgetContinuations,
    turnOutputTokens: s.turnOutputTokens,
    tokenBudgetIncrements: s.tokenBudgetIncrements,
    repeatedCall: s.repeatedCall,
    usage: s.usage,
    costUsd: s.costUsd,
    lastAssistantText: s.lastAssistantText,
    lastUsage: s.lastUsage,
    lastUsageCovers: s.lastUsageCovers,
  } satisfies Record<keyof LoopState, unknown>;
  return draft;
}
