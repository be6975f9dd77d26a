/**
 * `stateWith` and the transitions built on it: every key copied, one key order for every state
 * (the first one included), and each transition changing exactly the fields it names.
 */
import { describe, expect, it } from 'vitest';
import { initialState } from '../../src/loop/initialState.js';
import type { RunContext } from '../../src/loop/runContext.js';
import { stateWith } from '../../src/loop/stateWith.js';
import {
  FRESH_TURN_COUNTERS,
  malformedToolUseRetry,
  maxOutputTokensRecovery,
  nextTurn,
  pauseTurnContinuation,
  reactiveCompactRetry,
  stopHookBlocking,
  thinkingOnlyNudge,
  tokenBudgetContinuation,
} from '../../src/loop/transitions.js';
import type { LoopState } from '../../src/loop/types.js';
import { loopStateOf } from './helpers.js';

/** A state whose every field differs from a fresh one's. */
const busy: LoopState = loopStateOf({
  lastMessageUuid: 'u9',
  turnCount: 4,
  depth: 7,
  transition: { reason: 'next_turn' },
  maxOutputTokensRecoveryCount: 2,
  malformedToolUseRetryCount: 1,
  thinkingOnlyNudged: true,
  pauseTurnContinuations: 3,
  container: 'ctr_1',
  hasAttemptedReactiveCompact: true,
  stopHookActive: true,
  stopHookBlockCount: 2,
  tokenBudgetContinuations: 1,
  turnOutputTokens: 50,
  tokenBudgetIncrements: [10],
  repeatedCall: { signature: 's', count: 2 },
  costUsd: 0.5,
  lastAssistantText: 'hi',
  lastUsage: { input_tokens: 1, output_tokens: 2 },
  lastUsageCovers: 1,
});

const STATE_KEYS = Object.keys(stateWith(busy));

const history = { messages: [{ role: 'user' as const, content: 'more' }], lastUuid: 'u10' };

describe('stateWith', () => {
  it('copies every key of the state into a new object', () => {
    const copy = stateWith(busy);
    expect(copy).not.toBe(busy);
    expect(copy).toStrictEqual(busy);
    expect(new Set(STATE_KEYS)).toEqual(new Set(Object.keys(busy)));
  });

  it('keeps `container` as a key when it is undefined (one shape for every state)', () => {
    const copy = stateWith(loopStateOf());
    expect('container' in copy).toBe(true);
    expect(copy.container).toBeUndefined();
    expect(Object.keys(copy)).toEqual(STATE_KEYS);
  });

  it('the first state lists the same keys in the same order', () => {
    const ctx = { options: { model: 'm', prompt: 'go' }, chainId: 'c', newId: () => 'id' } as unknown as RunContext;
    expect(Object.keys(initialState(ctx))).toEqual(STATE_KEYS);
  });
});

describe('transitions', () => {
  const fresh: LoopState = { ...busy, thinkingOnlyNudged: false, hasAttemptedReactiveCompact: false };
  const cases: [string, LoopState, LoopState, Partial<LoopState>][] = [
    ['nextTurn', busy, nextTurn(busy, history, { k: 1 }), { turnCount: 5, shared: { k: 1 }, ...FRESH_TURN_COUNTERS, transition: { reason: 'next_turn' } }],
    ['maxOutputTokensRecovery', busy, maxOutputTokensRecovery(busy, history), { maxOutputTokensRecoveryCount: 3, transition: { reason: 'max_output_tokens_recovery' } }],
    ['malformedToolUseRetry', busy, malformedToolUseRetry(busy, history), { malformedToolUseRetryCount: 2, transition: { reason: 'malformed_tool_use_retry' } }],
    ['thinkingOnlyNudge', fresh, thinkingOnlyNudge(fresh, history), { thinkingOnlyNudged: true, transition: { reason: 'thinking_only_nudge' } }],
    ['reactiveCompactRetry', fresh, reactiveCompactRetry(fresh, history), { hasAttemptedReactiveCompact: true, transition: { reason: 'reactive_compact_retry' } }],
    ['stopHookBlocking', busy, stopHookBlocking(busy, history), { turnCount: 5, stopHookActive: true, stopHookBlockCount: 3, transition: { reason: 'stop_hook_blocking' } }],
    ['tokenBudgetContinuation', busy, tokenBudgetContinuation(busy, history, 20), { tokenBudgetContinuations: 2, tokenBudgetIncrements: [10, 20], transition: { reason: 'token_budget_continuation' } }],
    ['pauseTurnContinuation', busy, pauseTurnContinuation(busy, history), { pauseTurnContinuations: 4, transition: { reason: 'pause_turn_continuation' } }],
  ];

  it.each(cases)('%s changes only its fields (plus the history and depth), keys in the one order', (_name, before, next, changed) => {
    expect(next).toStrictEqual({ ...before, messages: history.messages, lastMessageUuid: 'u10', depth: 8, ...changed });
    expect(Object.keys(next)).toEqual(STATE_KEYS);
  });
});
