/** The stream-json mapper as a pure function of loop events (no process, no server). */
import { describe, expect, test } from 'vitest';
import type { LoopEvent, TerminalEvent } from '../../src/loop/types.js';
import type { AssistantMessage } from '../../src/protocol/content.js';
import { createStreamJsonMapper, initLine } from '../../src/cli/output/streamJson.js';
import { buildResultLine, exitCodeOf, resultSubtypeOf } from '../../src/cli/output/resultLine.js';
import { outputLineSchema, type OutputLine } from '../../src/cli/outputSchemas.js';
import { TERMINAL_REASONS } from '../../src/loop/types.js';

const run = { sessionId: 's1', cwd: '/w', model: 'm', tools: ['Read'], permissionMode: 'default', apiKeySource: 'ANTHROPIC_API_KEY' };
const t = { chainId: 'c', depth: 0 };

function mapper(includePartialMessages = false) {
  let n = 0;
  let clock = 1000;
  return {
    m: createStreamJsonMapper(run, { includePartialMessages, newUuid: () => `u${++n}`, now: () => (clock += 10) }),
  };
}

const message: AssistantMessage = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [
    { type: 'text', text: 'hi' },
    { type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'a' } },
  ],
  stop_reason: 'tool_use',
  usage: { input_tokens: 5, output_tokens: 2 },
};

function terminal(reason: TerminalEvent['reason'], extra: Partial<TerminalEvent> = {}): LoopEvent {
  return {
    ...t,
    type: 'terminal',
    reason,
    turnCount: 2,
    usage: { inputTokens: 5, outputTokens: 2, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    costUsd: 0.01,
    durationMs: 42,
    lastAssistantText: 'done',
    ...extra,
  } as LoopEvent;
}

const responseEvents: LoopEvent[] = [
  { ...t, type: 'iteration_start', turnCount: 1, model: 'm', transition: undefined },
  { ...t, type: 'model', event: { type: 'message_start', id: 'msg_1', model: 'm', usage: { input_tokens: 5 } } },
  { ...t, type: 'model', event: { type: 'block_start', index: 0, block: { type: 'text', text: '' } } },
  { ...t, type: 'model', event: { type: 'text_delta', index: 0, text: 'hi' } },
  { ...t, type: 'model', event: { type: 'block', index: 0, block: { type: 'text', text: 'hi' } } },
  { ...t, type: 'model', event: { type: 'block', index: 1, block: { type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'a' } } } },
  { ...t, type: 'tool_start', toolUseId: 'tu1', name: 'Read', input: { file_path: 'a' } },
  { ...t, type: 'tool_result', toolUseId: 'tu1', name: 'Read', result: { type: 'tool_result', tool_use_id: 'tu1', content: 'x' }, durationMs: 3 },
  { ...t, type: 'model', event: { type: 'message_delta', stopReason: 'tool_use', stopSequence: null, usage: { output_tokens: 2 } } },
  { ...t, type: 'assistant_message', message, uuid: 'loop-a1' },
  {
    ...t,
    type: 'user_message',
    uuid: 'loop-u1',
    reason: 'tool_results',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'x' }] },
  },
];

function validate(lines: OutputLine[]): OutputLine[] {
  for (const line of lines) expect(outputLineSchema.safeParse(JSON.parse(JSON.stringify(line))).success).toBe(true);
  return lines;
}

describe('createStreamJsonMapper', () => {
  test('no events but the terminal: just the result line', () => {
    const { m } = mapper();
    const lines = validate(m.map(terminal('completed')));
    expect(lines).toEqual([expect.objectContaining({ type: 'result', subtype: 'success', result: 'done', num_turns: 2, duration_ms: 42 })]);
  });

  test('one assistant line per completed block (same message id), one user line per tool result, history not repeated', () => {
    const { m } = mapper();
    const lines = validate(responseEvents.flatMap((e) => m.map(e)));
    expect(lines.map((l) => l.type)).toEqual(['assistant', 'assistant', 'user']);
    const [a, b] = lines as Array<Extract<OutputLine, { type: 'assistant' }>>;
    expect(a!.message.id).toBe('msg_1');
    expect(b!.message.id).toBe('msg_1');
    expect(b!.message.content).toEqual([{ type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'a' } }]);
    const result = m.map(terminal('completed'))[0] as Extract<OutputLine, { type: 'result' }>;
    expect(result.stop_reason).toBe('tool_use');
    expect(result.duration_api_ms).toBeGreaterThan(0);
  });

  test('an invalid tool input is printed as the plain block the API sent (no internal fields)', () => {
    const { m } = mapper();
    m.map(responseEvents[1]!);
    const lines = m.map({
      ...t,
      type: 'model',
      event: { type: 'block', index: 0, block: { type: 'tool_use', id: 'x', name: 'Read', input: {}, invalid: { rawInput: '{', reason: 'bad' } } as never },
    });
    expect((lines[0] as Extract<OutputLine, { type: 'assistant' }>).message.content[0]).toEqual({ type: 'tool_use', id: 'x', name: 'Read', input: {} });
  });

  test('partial messages: API-shaped stream events, message_stop at the assembled message', () => {
    const { m } = mapper(true);
    const lines = validate(responseEvents.flatMap((e) => m.map(e)));
    const events = lines.filter((l) => l.type === 'stream_event').map((l) => (l as Extract<OutputLine, { type: 'stream_event' }>).event);
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[2]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } });
  });

  test('retries: api_retry keeps partial output, stream_retry after printed lines asks to discard it', () => {
    const { m } = mapper();
    const retry = { attempt: 1, maxRetries: 3, delayMs: 500, status: 529, errorType: 'overloaded_error', message: 'busy' };
    const [announced] = validate(m.map({ ...t, type: 'api_retry', retry: { type: 'api_retry', ...retry } }));
    expect(announced).toMatchObject({ subtype: 'api_retry', error_status: 529, retry_delay_ms: 500, discard_partial: false });
    m.map(responseEvents[1]!);
    m.map(responseEvents[4]!);
    const [streamRetry] = validate(m.map({ ...t, type: 'stream_retry', retry: { type: 'stream_retry', ...retry, status: undefined } }));
    expect(streamRetry).toMatchObject({ subtype: 'api_retry', error_status: null, discard_partial: true });
  });

  test('tombstones name the uuids of the lines that showed the retracted messages', () => {
    const { m } = mapper();
    const shown = responseEvents.flatMap((e) => m.map(e));
    const [tomb] = validate(m.map({ ...t, type: 'tombstone', uuids: ['loop-a1', 'loop-u1'] }));
    expect((tomb as Extract<OutputLine, { subtype: 'tombstone' }>).uuids).toEqual(shown.map((l) => l.uuid));
  });

  test('synthetic results and Stop hook feedback not yet printed become user lines; the prompt does not', () => {
    const { m } = mapper();
    expect(m.map({ ...t, type: 'user_message', uuid: 'p', reason: 'prompt', message: { role: 'user', content: 'question' } })).toEqual([]);
    const orphan = m.map({
      ...t,
      type: 'user_message',
      uuid: 'o',
      reason: 'orphan_results',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu9', content: 'interrupted', is_error: true }] },
    });
    expect(validate(orphan)).toHaveLength(1);
    const feedback = m.map({ ...t, type: 'user_message', uuid: 'f', reason: 'stop_hook_feedback', message: { role: 'user', content: 'keep going' } });
    expect(validate(feedback)[0]).toMatchObject({ type: 'user', message: { content: [{ type: 'text', text: 'keep going' }] } });
    expect(m.map({ ...t, type: 'user_message', uuid: 'n', reason: 'nudge', isMeta: true, message: { role: 'user', content: 'hidden' } })).toEqual([]);
  });

  test('warnings and compact boundaries are system lines; denials reach the result', () => {
    const { m } = mapper();
    validate(m.map({ ...t, type: 'warning', message: 'careful' }));
    const [boundary] = validate(m.map({ ...t, type: 'compact_boundary', trigger: 'auto', preTokens: 9000, postTokens: 1000 }));
    expect(boundary).toMatchObject({ subtype: 'compact_boundary', compact_metadata: { trigger: 'auto', pre_tokens: 9000 } });
    m.recordDenial({ tool_name: 'Edit', tool_use_id: 'e1', tool_input: { file_path: 'a' } });
    const [result] = validate(m.map(terminal('completed')));
    expect((result as Extract<OutputLine, { type: 'result' }>).permission_denials).toEqual([{ tool_name: 'Edit', tool_use_id: 'e1', tool_input: { file_path: 'a' } }]);
  });

  test('the init line validates', () => {
    validate([initLine(run, 'u0')]);
  });
});

describe('result subtypes and exit statuses', () => {
  test.each(TERMINAL_REASONS.map((r) => [r]))('%s', (reason) => {
    const line = buildResultLine(terminal(reason, { error: { kind: 'api', message: 'boom', status: 500 } }) as TerminalEvent, {
      sessionId: 's',
      uuid: 'u',
      stopReason: null,
      durationApiMs: 1,
      permissionDenials: [],
    });
    validate([line]);
    const success = ['completed', 'hook_stopped', 'stop_hook_prevented', 'tool_deferred'].includes(reason);
    expect(line.is_error).toBe(!success);
    expect(exitCodeOf(reason)).toBe(success ? 0 : 1);
    expect(line.terminal_reason).toBe(reason);
    if (success) expect(line.result).toBe('done');
    else expect(line.errors).toHaveLength(1);
    // Execution errors repeat their one error line as `result`; the other error subtypes do not.
    if (!success) expect(line.result).toBe(resultSubtypeOf(reason) === 'error_during_execution' ? line.errors?.[0] : undefined);
    const expected = reason === 'max_turns' ? 'error_max_turns' : reason === 'budget_exhausted' ? 'error_max_budget_usd' : success ? 'success' : 'error_during_execution';
    expect(resultSubtypeOf(reason)).toBe(expected);
  });
});

describe('subagent events', () => {
  const wrap = (event: LoopEvent, agentId: string, parentToolUseId: string): LoopEvent => ({
    ...t,
    type: 'tool_progress',
    toolUseId: parentToolUseId,
    name: 'Agent',
    data: { type: 'subagent_event', agentId, agentType: 'helper', agentDepth: 1, parentToolUseId, background: false, event },
  });

  test('child lines carry the direct parent call; a grandchild (wrapped twice) names its own parent; no child result line', () => {
    const { m } = mapper();
    const child = responseEvents.map((e) => wrap(e, 'agent-a', 'toolu_parent'));
    const grandchild = responseEvents.map((e) => wrap(wrap(e, 'agent-b', 'toolu_child'), 'agent-a', 'toolu_parent'));
    const lines = [...child, ...grandchild, wrap(terminal('completed'), 'agent-a', 'toolu_parent'), terminal('completed')].flatMap((e) => m.map(e));
    for (const line of lines) expect(outputLineSchema.safeParse(line).success).toBe(true);
    const parentsOf = (type: string) =>
      lines.filter((l) => l.type === type).map((l) => ('parent_tool_use_id' in l ? l.parent_tool_use_id : undefined));
    expect(parentsOf('assistant')).toEqual(['toolu_parent', 'toolu_parent', 'toolu_child', 'toolu_child']);
    expect(parentsOf('user')).toEqual(['toolu_parent', 'toolu_child']);
    expect(lines.filter((l) => l.type === 'result')).toHaveLength(1);
    expect(lines[lines.length - 1]!.type).toBe('result');
    // The child's response never becomes the parent's: the parent saw no assistant message.
    expect(lines[lines.length - 1]).toMatchObject({ stop_reason: null });
  });
});
