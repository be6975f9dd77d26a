/** The per-iteration event builders give exactly what `eventOf` gives: the same keys, in its order. */
import { describe, expect, it } from 'vitest';
import { eventOf, iterationStartEvent, transitionEvent, userMessageEvent } from '../../src/loop/events.js';
import type { LoopEvent } from '../../src/loop/types.js';
import { loopStateOf } from './helpers.js';

const same = (built: LoopEvent, spread: LoopEvent) => {
  expect(built).toStrictEqual(spread);
  expect(Object.keys(built)).toEqual(Object.keys(spread));
};

describe('event builders', () => {
  const state = loopStateOf({ chainId: 'c1', depth: 3, turnCount: 2, transition: { reason: 'next_turn' } });

  it('iteration_start, with and without a transition', () => {
    same(iterationStartEvent(state), eventOf(state, { type: 'iteration_start', turnCount: 2, model: state.model, transition: 'next_turn' }));
    const first = loopStateOf();
    same(iterationStartEvent(first), eventOf(first, { type: 'iteration_start', turnCount: 1, model: first.model, transition: undefined }));
  });

  it('transition', () => {
    same(transitionEvent(state, 'pause_turn_continuation', 2), eventOf(state, { type: 'transition', reason: 'pause_turn_continuation', turnCount: 2 }));
  });

  it('user_message', () => {
    const message = { role: 'user' as const, content: 'hi' };
    same(userMessageEvent(state, message, 'u1', 'tool_results', false), eventOf(state, { type: 'user_message', message, uuid: 'u1', reason: 'tool_results', isMeta: false }));
  });
});
