/**
 * Property: over random valid histories (turns of text, thinking and tool_use/tool_result pairs),
 * every layer returns a history the API would accept, never mutates its input, and never touches
 * an assistant message — so thinking blocks stay in their message, in order — and compaction
 * never keeps a part of a thinking trajectory without its reasoning.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCompactedView, planCompaction } from '../../src/context/compact.js';
import { microcompact } from '../../src/context/microcompact.js';
import { snip } from '../../src/context/snip.js';
import { applyToolResultBudget, createToolResultBudgetState } from '../../src/context/toolResultBudget.js';
import { hasThinking, isTurnStart } from '../../src/context/turns.js';
import type { MessageParam } from '../../src/protocol/content.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import { deepFreeze, historyArbitrary, requestOf } from './histories.js';

/** Assistant messages of `out` are the very objects of `input`, in the same relative order. */
function assistantsUntouched(input: readonly MessageParam[], out: readonly MessageParam[]): boolean {
  const position = new Map<MessageParam, number>();
  input.forEach((m, i) => position.set(m, i));
  let last = -1;
  for (const message of out) {
    if (message.role !== 'assistant') continue;
    const at = position.get(message);
    if (at === undefined || at <= last) return false;
    last = at;
  }
  return true;
}

function expectValid(messages: readonly MessageParam[]): void {
  expect(validateMessagesRequest(requestOf(messages))).toEqual([]);
}

const runs = { numRuns: 150 };

describe('context layers over random valid histories', () => {
  it('tool-result budget', () => {
    fc.assert(
      fc.property(historyArbitrary, fc.integer({ min: 0, max: 3_000 }), (history, limit) => {
        deepFreeze(history);
        const stored = new Map<string, string>();
        const out = applyToolResultBudget(history, createToolResultBudgetState(), {
          maxResultSizeChars: (name) => (name === 'Read' ? limit : undefined),
          store: (id, text) => {
            stored.set(id, text);
            return `/sessions/s1/tool-results/${id}.txt`;
          },
          previewChars: 50,
        });
        expect(out.messages).toHaveLength(history.length);
        expectValid(out.messages);
        expect(assistantsUntouched(history, out.messages)).toBe(true);
        for (const entry of out.stored) expect(stored.get(entry.toolUseId)!.length).toBeGreaterThan(limit);
      }),
      runs,
    );
  });

  it('snip', () => {
    fc.assert(
      fc.property(historyArbitrary, fc.integer({ min: 1, max: 9 }), (history, maxTurns) => {
        deepFreeze(history);
        const out = snip(history, { maxTurns });
        expectValid(out.messages);
        expect(assistantsUntouched(history, out.messages)).toBe(true);
        expect(out.messages.at(-1)).toBe(history.at(-1));
        expect(out.messages.filter(isTurnStart).length).toBeLessThanOrEqual(maxTurns);
        expect(out.removedMessages + out.messages.length).toBe(history.length);
      }),
      runs,
    );
  });

  it('microcompact', () => {
    fc.assert(
      fc.property(historyArbitrary, fc.integer({ min: 0, max: 6 }), (history, keepRecentRounds) => {
        deepFreeze(history);
        const out = microcompact(history, { keepRecentRounds });
        expect(out.messages).toHaveLength(history.length);
        expectValid(out.messages);
        expect(assistantsUntouched(history, out.messages)).toBe(true);
        expect(out.tokensFreed).toBeGreaterThanOrEqual(0);
      }),
      runs,
    );
  });

  it('compaction view', () => {
    fc.assert(
      fc.property(historyArbitrary, fc.integer({ min: 0, max: 5_000 }), (history, keepRecentTokens) => {
        deepFreeze(history);
        const plan = planCompaction(history, keepRecentTokens);
        if (plan === undefined) {
          // Only a history with nowhere to cut: a lone prompt, or one turn whose reasoning starts it.
          expect(history.filter(isTurnStart).length).toBe(1);
          return;
        }
        expect(plan.keptStart).toBeGreaterThan(0);
        const kept = history.slice(plan.keptStart);
        const view = buildCompactedView('the summary', kept);
        expectValid(view);
        expect(view[0]!.role).toBe('user');
        expect(assistantsUntouched(history, view)).toBe(true);
        expect(view.at(-1)!.role).toBe('user');
        // A kept partial turn (starting at an assistant message) has its reasoning with it.
        const first = history[plan.keptStart]!;
        if (first.role === 'assistant') {
          let start = plan.keptStart - 1;
          while (!isTurnStart(history[start]!)) start--;
          const reasoningBefore = history.slice(start, plan.keptStart).some(hasThinking);
          if (reasoningBefore) {
            expect(typeof first.content !== 'string' && first.content[0]?.type).toBe('thinking');
          }
        }
      }),
      runs,
    );
  });

  it('all layers in a row', () => {
    fc.assert(
      fc.property(historyArbitrary, (history) => {
        deepFreeze(history);
        const budgeted = applyToolResultBudget(history, createToolResultBudgetState(), {
          maxResultSizeChars: () => 500,
          store: (id) => `/tmp/${id}`,
        }).messages;
        const snipped = snip(budgeted, { maxTurns: 3 }).messages;
        const cleared = microcompact(snipped, { keepRecentRounds: 2 }).messages;
        const plan = planCompaction(cleared, 1_000);
        const view = plan ? buildCompactedView('s', cleared.slice(plan.keptStart)) : cleared;
        expectValid(view);
        expect(assistantsUntouched(history, view)).toBe(true);
      }),
      runs,
    );
  });
});
