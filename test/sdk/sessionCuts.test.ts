/**
 * Where an SDK session is cut, through the real Agent SDK: `/compact` (its documented slash
 * command) compacts the conversation between turns, PreCompact hook callbacks run first with
 * trigger `manual` and the instructions, a `compact_boundary` message says so, and the next turn
 * starts from the summary; `resumeSessionAt` takes the uuid of any message line the SDK yielded.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { COMPACT_SYSTEM_PROMPT } from '../../src/context/compactPrompt.js';
import { makeSandbox } from '../cli/helpers.js';
import { systemText, withoutCacheMarks } from '../loop/helpers.js';
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

test("resumeSessionAt takes the uuid of any SDK message line (each content block's line, a tool result's line) and cuts the history there", async () => {
  const sandbox = makeSandbox({ 'a.txt': 'alpha\n' });
  const prompts = promptsAfterResults(['first question', 'second question']);
  const first = await runQuery(
    [
      { kind: 'message', blocks: [{ type: 'text', text: 'looking' }, { type: 'tool_use', name: 'Read', input: { file_path: 'a.txt' } }] },
      answer('one'),
      answer('two'),
    ],
    prompts.input,
    {},
    { sandbox, onMessage: (m) => void (m.type === 'result' && prompts.resultSeen()) },
  );
  expect(resultOf(first.messages).map((r) => r.subtype)).toEqual(['success', 'success']);
  const sessionId = first.messages[0]!.session_id;
  const assistants = first.messages.filter((m) => m.type === 'assistant');
  const toolResultLine = first.messages.find((m) => m.type === 'user' && Array.isArray(m.message.content) && m.message.content.some((b) => b.type === 'tool_result'));
  // The tool call's message printed two lines (text, tool_use); the second one's uuid is a resume point too.
  expect(assistants.map((m) => (m.type === 'assistant' ? m.message.content[0]?.type : ''))).toEqual(['text', 'tool_use', 'text', 'text']);
  const sentAfter = async (at: string) => {
    const again = await runQuery([answer('resumed')], 'third question', { resume: sessionId, resumeSessionAt: at }, { sandbox });
    expect(resultOf(again.messages)[0]).toMatchObject({ subtype: 'success', result: 'resumed' });
    return JSON.stringify(withoutCacheMarks(again.server.requests[0]!.body!.messages));
  };
  // At the answer of the first turn: the second turn is left out.
  const atOne = await sentAfter(assistants[2]!.uuid);
  expect(atOne).toContain('"one"');
  expect(atOne).not.toContain('second question');
  // At the tool result's line: the call and its result are kept, the answer after it is not.
  const atResult = await sentAfter(toolResultLine!.uuid!);
  expect(atResult).toContain('alpha');
  expect(atResult).not.toContain('"one"');
  // At the tool_use block's line (its message's second line): the call is kept; its result was after it.
  const atCall = await sentAfter(assistants[1]!.uuid);
  expect(atCall).toContain('"looking"');
  expect(atCall).not.toContain('alpha');
}, 180_000);
