/**
 * The incrementally prepared history must be exactly what preparing it from scratch gives, for
 * any sequence of histories a run can produce: appends (the usual turn), a joined continuation
 * (the last message replaced), compaction (a new array from the first message), a shorter
 * history (snip), a thinking setting that changes (fallback model), and the caller's own
 * breakpoints in any message.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { countBreakpoints } from '../../src/protocol/cacheBreakpoints.js';
import type { MessageParam } from '../../src/protocol/content.js';
import { joinConsecutiveUsers, stripThinking } from '../../src/loop/messages.js';
import { NOTHING_SENT, prepareHistory, type SentHistory } from '../../src/loop/sentHistory.js';

const EPHEMERAL = { type: 'ephemeral' } as const;

const messageArb: fc.Arbitrary<MessageParam> = fc.oneof(
  fc.string({ maxLength: 3 }).map((t): MessageParam => ({ role: 'user', content: t })),
  fc.tuple(fc.string({ maxLength: 3 }), fc.boolean()).map(
    ([t, marked]): MessageParam => ({ role: 'user', content: [{ type: 'text', text: t, ...(marked ? { cache_control: EPHEMERAL } : {}) }] }),
  ),
  fc.boolean().map(
    (marked): MessageParam => ({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'r', ...(marked ? { cache_control: EPHEMERAL } : {}) }] }],
    }),
  ),
  fc.tuple(fc.boolean(), fc.boolean()).map(
    ([thinking, onlyThinking]): MessageParam => ({
      role: 'assistant',
      content: [
        ...(thinking ? [{ type: 'thinking' as const, thinking: 'hm', signature: 's' }] : []),
        ...(onlyThinking && thinking ? [] : [{ type: 'text' as const, text: 'a' }]),
      ],
    }),
  ),
);

type Step =
  | { readonly t: 'append'; readonly added: readonly MessageParam[] }
  | { readonly t: 'replaceLast'; readonly with: MessageParam }
  | { readonly t: 'rewrite'; readonly all: readonly MessageParam[] }
  | { readonly t: 'cut'; readonly keep: number }
  | { readonly t: 'thinking' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.array(messageArb, { maxLength: 3 }).map((added): Step => ({ t: 'append', added })) },
  { weight: 1, arbitrary: messageArb.map((m): Step => ({ t: 'replaceLast', with: m })) },
  { weight: 1, arbitrary: fc.array(messageArb, { maxLength: 4 }).map((all): Step => ({ t: 'rewrite', all })) },
  { weight: 1, arbitrary: fc.nat(6).map((keep): Step => ({ t: 'cut', keep })) },
  { weight: 1, arbitrary: fc.constant<Step>({ t: 'thinking' }) },
);

function apply(history: readonly MessageParam[], step: Step): readonly MessageParam[] {
  switch (step.t) {
    case 'append':
      return [...history, ...step.added];
    case 'replaceLast':
      return history.length === 0 ? [step.with] : [...history.slice(0, -1), step.with];
    case 'rewrite':
      return [...step.all];
    case 'cut':
      return history.slice(0, step.keep);
    case 'thinking':
      return history;
  }
}

function fromScratch(history: readonly MessageParam[], keepThinking: boolean) {
  const joined = joinConsecutiveUsers(history);
  const messages = keepThinking ? joined : stripThinking(joined);
  return { messages, breakpoints: countBreakpoints({ model: 'm', max_tokens: 1, messages: [...messages] }) };
}

describe('prepareHistory', () => {
  it('prepares exactly what preparing from scratch gives, over any sequence of histories', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 25 }), fc.boolean(), (steps, thinkingAtStart) => {
        let sent: SentHistory = NOTHING_SENT;
        let history: readonly MessageParam[] = [];
        let keepThinking = thinkingAtStart;
        const earlier: { messages: readonly MessageParam[]; copy: string }[] = [];
        for (const step of steps) {
          history = apply(history, step);
          if (step.t === 'thinking') keepThinking = !keepThinking;
          const prepared = prepareHistory(sent, history, keepThinking);
          sent = prepared;
          const expected = fromScratch(history, keepThinking);
          expect(prepared.messages).toEqual(expected.messages);
          expect(prepared.breakpoints).toBe(expected.breakpoints);
          earlier.push({ messages: prepared.messages, copy: JSON.stringify(prepared.messages) });
        }
        // A request keeps its messages: later preparation never changed an earlier result.
        for (const { messages, copy } of earlier) expect(JSON.stringify(messages)).toBe(copy);
      }),
      { numRuns: 400 },
    );
  });

  it('empty: an empty history prepares to no messages and no breakpoints', () => {
    const prepared = prepareHistory(NOTHING_SENT, [], false);
    expect(prepared.messages).toEqual([]);
    expect(prepared.breakpoints).toBe(0);
  });

  it('keeps the messages themselves when nothing is joined or stripped (no copies per message)', () => {
    const history: MessageParam[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ];
    const first = prepareHistory(NOTHING_SENT, history, false);
    const second = prepareHistory(first, [...history, { role: 'user', content: 'more' }], false);
    expect(first.messages[0]).toBe(history[0]);
    expect(second.messages[1]).toBe(history[1]);
    expect(second.messages).not.toBe(first.messages);
  });

  it('is a value: preparing from an earlier one again gives the same as from scratch (nothing it holds was changed)', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 2, maxLength: 15 }), fc.nat(14), stepArb, (steps, at, branch) => {
        const values: { sent: SentHistory; history: readonly MessageParam[]; keepThinking: boolean }[] = [];
        let sent: SentHistory = NOTHING_SENT;
        let history: readonly MessageParam[] = [];
        let keepThinking = false;
        for (const step of steps) {
          history = apply(history, step);
          if (step.t === 'thinking') keepThinking = !keepThinking;
          sent = prepareHistory(sent, history, keepThinking);
          values.push({ sent, history, keepThinking });
        }
        // Go on from an earlier value, after later ones were made from it.
        const start = values[at % values.length]!;
        const next = apply(start.history, branch);
        const thinking = branch.t === 'thinking' ? !start.keepThinking : start.keepThinking;
        const prepared = prepareHistory(start.sent, next, thinking);
        const expected = fromScratch(next, thinking);
        expect(prepared.messages).toEqual(expected.messages);
        expect(prepared.breakpoints).toBe(expected.breakpoints);
      }),
      { numRuns: 300 },
    );
  });
});
