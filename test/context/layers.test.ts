import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MICROCOMPACT_PLACEHOLDER, microcompact } from '../../src/context/microcompact.js';
import { snip } from '../../src/context/snip.js';
import {
  applyToolResultBudget,
  createFileResultStore,
  createToolResultBudgetState,
} from '../../src/context/toolResultBudget.js';
import { buildCompactedView, buildCompactionRequest, planCompaction, renderTranscript } from '../../src/context/compact.js';
import { estimateMessagesTokens } from '../../src/context/tokens.js';
import type { MessageParam, ToolResultBlock } from '../../src/protocol/content.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import { assistantText, deepFreeze, requestOf, toolCall, toolResult, toolTurn, user } from './histories.js';

const resultOf = (message: MessageParam | undefined, k = 0): ToolResultBlock => {
  if (!message || typeof message.content === 'string') throw new Error('not a block message');
  const block = message.content[k];
  if (block?.type !== 'tool_result') throw new Error('not a tool_result');
  return block;
};

describe('tool-result budget', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxagent-budget-'));
    dirs.push(dir);
    return dir;
  };

  it('stores an oversized result in a file and leaves a preview, the absolute path and a Read hint', () => {
    const dir = tempDir();
    const big = 'line of output\n'.repeat(1_000);
    const history = deepFreeze([user('go'), toolCall('toolu_big', 'Bash'), toolResult('toolu_big', big)]);
    const state = createToolResultBudgetState();
    const limit = (name: string) => (name === 'Bash' ? 5_000 : undefined);
    const out = applyToolResultBudget(history, state, { maxResultSizeChars: limit, store: createFileResultStore(dir), previewChars: 100 });

    expect(out.stored).toHaveLength(1);
    const stored = out.stored[0]!;
    expect(isAbsolute(stored.path)).toBe(true);
    expect(stored).toMatchObject({ toolUseId: 'toolu_big', toolName: 'Bash', originalChars: big.length });
    expect(readFileSync(stored.path, 'utf8')).toBe(big);
    const text = resultOf(out.messages[2]).content as string;
    expect(text.startsWith(big.slice(0, 100))).toBe(true);
    expect(text).toContain(stored.path);
    expect(text).toMatch(/Read tool/);
    expect(text.length).toBeLessThan(1_000);
    // Unchanged messages are shared, the input is untouched.
    expect(out.messages[0]).toBe(history[0]);
    expect(out.messages[1]).toBe(history[1]);
    expect(resultOf(history[2]).content).toBe(big);
    expect(validateMessagesRequest(requestOf(out.messages))).toEqual([]);
  });

  it('processes each result once: the next call reuses the replacement without writing again', () => {
    const dir = tempDir();
    let writes = 0;
    const fileStore = createFileResultStore(dir);
    const store = (id: string, text: string) => {
      writes++;
      return fileStore(id, text);
    };
    const history = [user('go'), toolCall('a', 'Bash'), toolResult('a', 'x'.repeat(50))];
    const state = createToolResultBudgetState();
    const options = { maxResultSizeChars: () => 10, store };
    const first = applyToolResultBudget(history, state, options);
    const second = applyToolResultBudget([...history, toolCall('b', 'Bash'), toolResult('b', 'ok')], state, options);
    expect(writes).toBe(1);
    expect(second.stored).toEqual([]);
    expect(second.messages[2]).toBe(first.messages[2]);
  });

  it('leaves results of tools without a limit, and results under the limit, as they are', () => {
    const history = [user('go'), toolCall('a', 'Read'), toolResult('a', 'x'.repeat(500))];
    const out = applyToolResultBudget(history, createToolResultBudgetState(), {
      maxResultSizeChars: (name) => (name === 'Bash' ? 10 : undefined),
      store: () => {
        throw new Error('must not store');
      },
    });
    expect(out.messages).toBe(history);
  });

  it('keeps a result whole and reports it when it cannot be stored (nothing is lost)', () => {
    const history = [user('go'), toolCall('a', 'Bash'), toolResult('a', 'x'.repeat(500))];
    const out = applyToolResultBudget(history, createToolResultBudgetState(), {
      maxResultSizeChars: () => 10,
      store: () => {
        throw new Error('disk full');
      },
    });
    expect(out.messages).toBe(history);
    expect(out.failed).toEqual([{ toolUseId: 'a', error: 'disk full' }]);
  });
});

describe('snip', () => {
  const history = deepFreeze([...toolTurn('one', 2), assistantText('done 1'), ...toolTurn('two', 1), assistantText('done 2'), ...toolTurn('three', 2)]);

  it('drops the oldest complete turns beyond the limit and reports the tokens freed', () => {
    const out = snip(history, { maxTurns: 2 });
    expect(out.removedMessages).toBe(6);
    expect(out.messages[0]).toBe(history[6]);
    expect(out.tokensFreed).toBe(estimateMessagesTokens(history, 0, 6));
    expect(validateMessagesRequest(requestOf(out.messages))).toEqual([]);
  });

  it('returns the same array when the history is within the limit', () => {
    expect(snip(history, { maxTurns: 3 }).messages).toBe(history);
    expect(snip([], { maxTurns: 1 }).messages).toEqual([]);
  });

  it('never cuts inside a turn: one long turn stays whole', () => {
    const oneTurn = toolTurn('long', 20);
    expect(snip(oneTurn, { maxTurns: 1 }).messages).toBe(oneTurn);
  });
});

describe('microcompact', () => {
  it('clears the content of results older than N rounds, keeping ids, error flags and pair validity', () => {
    const history = deepFreeze([
      user('go'),
      toolCall('a'),
      toolResult('a', 'A'.repeat(1_000), true),
      toolCall('b'),
      toolResult('b', 'B'.repeat(1_000)),
      toolCall('c'),
      toolResult('c', 'C'.repeat(1_000)),
    ]);
    const out = microcompact(history, { keepRecentRounds: 1 });
    expect(out.clearedResults).toBe(2);
    expect(resultOf(out.messages[2])).toEqual({ type: 'tool_result', tool_use_id: 'a', content: MICROCOMPACT_PLACEHOLDER, is_error: true });
    expect(resultOf(out.messages[4]).content).toBe(MICROCOMPACT_PLACEHOLDER);
    expect(out.messages[6]).toBe(history[6]);
    expect(out.messages[1]).toBe(history[1]);
    expect(out.tokensFreed).toBeGreaterThan(500);
    expect(validateMessagesRequest(requestOf(out.messages))).toEqual([]);
  });

  it('is idempotent and leaves short results and unlisted tools alone', () => {
    const history = [user('go'), toolCall('a', 'Grep'), toolResult('a', 'tiny'), toolCall('b', 'Read'), toolResult('b', 'B'.repeat(500)), toolCall('c'), toolResult('c', 'C')];
    const once = microcompact(history, { keepRecentRounds: 1, shouldClear: (name) => name === 'Read' });
    expect(once.clearedResults).toBe(1);
    expect(once.messages[2]).toBe(history[2]);
    const twice = microcompact(once.messages, { keepRecentRounds: 1 });
    expect(twice.messages).toBe(once.messages);
  });
});

describe('compaction plan and view', () => {
  it('is impossible on a single exchange', () => {
    expect(planCompaction([user('a very long prompt')], 10)).toBeUndefined();
    expect(planCompaction([], 10)).toBeUndefined();
  });

  it('keeps the most recent rounds within the budget, starting at an assistant message inside one long turn', () => {
    const history = toolTurn('t', 5, 300);
    const plan = planCompaction(history, 250)!;
    expect(history[plan.keptStart]!.role).toBe('assistant');
    const view = buildCompactedView('SUMMARY', history.slice(plan.keptStart));
    expect(view[0]).toEqual({ role: 'user', content: [{ type: 'text', text: expect.stringContaining('SUMMARY') }] });
    expect(view.at(-1)).toBe(history.at(-1));
    expect(validateMessagesRequest(requestOf(view))).toEqual([]);
  });

  it('keeps at least the last round even when it is over the budget', () => {
    const history = toolTurn('t', 3, 3_000);
    expect(planCompaction(history, 1)!.keptStart).toBe(history.length - 2);
  });

  it('merges the summary into a kept user prompt so roles still alternate', () => {
    const history = [...toolTurn('one', 2), assistantText('done'), user('next question')];
    const plan = planCompaction(history, 10)!;
    expect(plan.keptStart).toBe(history.length - 1);
    const view = buildCompactedView('S', history.slice(plan.keptStart));
    expect(view).toHaveLength(1);
    expect(view[0]!.content).toEqual([
      { type: 'text', text: expect.stringContaining('<summary>\nS\n</summary>') },
      { type: 'text', text: 'next question' },
    ]);
    expect(validateMessagesRequest(requestOf(view))).toEqual([]);
  });

  it('does not cut a thinking trajectory after its reasoning', () => {
    const history: MessageParam[] = [
      user('go'),
      toolCall('a', 'Read', {}, 'first I think'),
      toolResult('a', 'x'.repeat(900)),
      toolCall('b'), // no thinking of its own: it belongs to the trajectory started above
      toolResult('b', 'y'.repeat(900)),
    ];
    // Cutting at messages[3] would leave it without the reasoning of its trajectory: the latest
    // cut is messages[1], which carries that reasoning itself.
    expect(planCompaction(history, 1)!.keptStart).toBe(1);
    const withThinking: MessageParam[] = [...history.slice(0, 3), toolCall('b', 'Read', {}, 'more'), toolResult('b', 'y')];
    expect(planCompaction(withThinking, 1)!.keptStart).toBe(3);
  });

  it('builds a request with no tools and a plain-text transcript, clipping long results and leaving out reasoning', () => {
    const history = [user('fix the bug'), toolCall('a', 'Read', { file_path: '/x.ts' }, 'secret reasoning'), toolResult('a', 'R'.repeat(10_000))];
    const request = buildCompactionRequest(history, { model: 'm', maxTokens: 100, maxTranscriptChars: 100_000 });
    expect(request.tools).toBeUndefined();
    expect(request.messages).toHaveLength(1);
    const body = request.messages[0]!.content as string;
    expect(body).toContain('fix the bug');
    expect(body).toContain('/x.ts');
    expect(body).not.toContain('secret reasoning');
    expect(body.length).toBeLessThan(6_000);
    expect(validateMessagesRequest(request)).toEqual([]);
  });

  it('drops the oldest part of a transcript that would not fit', () => {
    const history = [user('old '.repeat(100)), assistantText('reply'), user('recent question')];
    const transcript = renderTranscript(history, 100);
    expect(transcript).toContain('recent question');
    expect(transcript).not.toContain('old old');
    expect(transcript).toMatch(/oldest messages were left out/);
  });
});
