/**
 * `/compact` through the real Agent SDK (its documented slash command): the conversation is
 * compacted between turns, PreCompact hook callbacks run first with trigger `manual` and the
 * instructions, a `compact_boundary` message says so, and the next turn starts from the summary.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { COMPACT_SYSTEM_PROMPT } from '../../src/context/compactPrompt.js';
import { systemText } from '../loop/helpers.js';
import { assertBuilt, promptsAfterResults, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });

test('/compact between turns: PreCompact (manual, with the instructions), a compact_boundary, the next turn on the summary', async () => {
  const prompts = promptsAfterResults(['first question', 'second question', '/compact keep the numbers', 'third question']);
  const preCompact: unknown[] = [];
  const { messages, server } = await runQuery([answer('one'), answer('two'), answer('SUMMARY OF THE FIRST EXCHANGE'), answer('three')], prompts.input, {
    hooks: { PreCompact: [{ hooks: [async (input) => (preCompact.push(input), {})] }] },
  }, {
    onMessage: (m) => void (m.type === 'result' && prompts.resultSeen()),
  });
  const results = resultOf(messages);
  expect(results.map((r) => r.subtype)).toEqual(['success', 'success', 'success', 'success']);
  expect(preCompact).toEqual([expect.objectContaining({ hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: 'keep the numbers' })]);
  const boundaries = messages.filter((m) => m.type === 'system' && m.subtype === 'compact_boundary');
  expect(boundaries).toEqual([expect.objectContaining({ compact_metadata: expect.objectContaining({ trigger: 'manual', pre_tokens: expect.any(Number) }) })]);
  // The boundary comes in the /compact turn, after its init and before its result.
  const third = messages.findIndex((m) => m === results[2]);
  expect(messages.indexOf(boundaries[0]!)).toBeLessThan(third);
  expect(messages.indexOf(boundaries[0]!)).toBeGreaterThan(messages.indexOf(results[1]!));

  // Requests: two turns, the summary request (our instructions plus the host's), the next turn.
  expect(server.requests).toHaveLength(4);
  const summaryRequest = server.requests[2]!.body!;
  expect(systemText(summaryRequest)).toContain(COMPACT_SYSTEM_PROMPT);
  expect(JSON.stringify(summaryRequest)).toContain('keep the numbers');
  const next = JSON.stringify(server.requests[3]!.body!.messages);
  expect(next).toContain('SUMMARY OF THE FIRST EXCHANGE');
  expect(next).not.toContain('first question');
  expect(next).toContain('second question');
  expect(next).toContain('third question');
  expect(results[3]).toMatchObject({ result: 'three' });
}, 120_000);
