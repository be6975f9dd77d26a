import { describe, expect, it } from 'vitest';
import { applyEvent, createAssemblyState } from '../../src/assembly/reducer.js';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import { ApiError, AssemblyError } from '../../src/errors.js';
import type { AssemblyErrorType } from '../../src/errors.js';
import type { TransportOutput } from '../../src/transport/types.js';
import {
  blockStop,
  citation,
  json,
  messageDelta,
  messageStart,
  messageStop,
  ping,
  redactedStart,
  signature,
  text,
  textStart,
  thinking,
  thinkingStart,
  toolStart,
} from './events.js';

/** Folds events with the reducer and returns everything emitted, in order. */
function fold(events: readonly TransportOutput[]): AssemblyOutput[] {
  let state = createAssemblyState();
  const out: AssemblyOutput[] = [];
  for (const event of events) {
    const step = applyEvent(state, event);
    state = step.state;
    out.push(...step.emitted);
  }
  return out;
}

function lastMessage(events: readonly TransportOutput[]) {
  const last = fold(events).at(-1);
  if (last?.type !== 'message') throw new Error(`expected a message last, got ${last?.type}`);
  return last.message;
}

function blockOf(events: readonly TransportOutput[]) {
  const block = fold(events).find((o) => o.type === 'block');
  if (block?.type !== 'block') throw new Error('no block emitted');
  return block.block;
}

const retry = {
  type: 'stream_retry',
  attempt: 1,
  maxRetries: 10,
  delayMs: 500,
  status: undefined,
  errorType: 'connection',
  message: 'socket closed',
} as const;

describe('assembly reducer: what each event emits', () => {
  const S = messageStart();
  const cases: { name: string; before: TransportOutput[]; event: TransportOutput; emitted: unknown[] }[] = [
    {
      name: 'message_start → message_start with id, model and usage',
      before: [],
      event: S,
      emitted: [{ type: 'message_start', id: 'msg_1', model: 'claude-test', usage: { input_tokens: 10, output_tokens: 1 } }],
    },
    {
      name: 'content_block_start (text) → block_start',
      before: [S],
      event: textStart(0),
      emitted: [{ type: 'block_start', index: 0, block: { type: 'text', text: '' } }],
    },
    {
      name: 'content_block_start (tool_use) → block_start',
      before: [S],
      event: toolStart(0, 'toolu_a', 'Grep'),
      emitted: [{ type: 'block_start', index: 0, block: { type: 'tool_use', id: 'toolu_a', name: 'Grep', input: {} } }],
    },
    {
      name: 'text_delta → text_delta',
      before: [S, textStart(0)],
      event: text(0, 'Hel'),
      emitted: [{ type: 'text_delta', index: 0, text: 'Hel' }],
    },
    {
      name: 'thinking_delta → thinking_delta',
      before: [S, thinkingStart(1)],
      event: thinking(1, 'hmm'),
      emitted: [{ type: 'thinking_delta', index: 1, thinking: 'hmm' }],
    },
    {
      name: 'signature_delta → nothing (the signature comes with the block)',
      before: [S, thinkingStart(0)],
      event: signature(0, 'sig'),
      emitted: [],
    },
    {
      name: 'citations_delta → nothing (the citation comes with the block)',
      before: [S, textStart(0)],
      event: citation(0, { cited_text: 'x' }),
      emitted: [],
    },
    {
      name: 'input_json_delta → tool_input_delta with the chunk and the chars received so far',
      before: [S, toolStart(2, 'toolu_x', 'Bash'), json(2, '{"co')],
      event: json(2, 'mmand"'),
      emitted: [
        { type: 'tool_input_delta', index: 2, id: 'toolu_x', name: 'Bash', partialJson: 'mmand"', receivedChars: 10 },
      ],
    },
    {
      name: 'message_delta → message_delta with usage merged over the start usage',
      before: [S],
      event: messageDelta('end_turn', { output_tokens: 42, cache_read_input_tokens: 7 }, null),
      emitted: [
        {
          type: 'message_delta',
          stopReason: 'end_turn',
          stopSequence: null,
          usage: { input_tokens: 10, output_tokens: 42, cache_read_input_tokens: 7 },
        },
      ],
    },
    { name: 'ping → nothing', before: [S], event: ping, emitted: [] },
    { name: 'ping before message_start → nothing', before: [], event: ping, emitted: [] },
    {
      name: 'api_retry passes through',
      before: [],
      event: { ...retry, type: 'api_retry' },
      emitted: [{ ...retry, type: 'api_retry' }],
    },
    {
      name: 'debug passes through, even mid-message',
      before: [S, textStart(0)],
      event: { type: 'debug', message: 'unknown event type: foo' },
      emitted: [{ type: 'debug', message: 'unknown event type: foo' }],
    },
    { name: 'stream_retry passes through', before: [S, textStart(0), text(0, 'a')], event: retry, emitted: [retry] },
  ];
  it.each(cases)('$name', ({ before, event, emitted }) => {
    const prefix = fold(before).length;
    expect(fold([...before, event]).slice(prefix)).toEqual(emitted);
  });
});

describe('assembly reducer: complete blocks at content_block_stop', () => {
  const S = messageStart();
  const cases: { name: string; events: TransportOutput[]; block: unknown }[] = [
    { name: 'text, joined from its deltas', events: [S, textStart(0), text(0, 'Hel'), text(0, 'lo ✓')], block: { type: 'text', text: 'Hello ✓' } },
    {
      name: 'text with its citations',
      events: [S, textStart(0), text(0, 'x'), citation(0, { n: 1 }), citation(0, { n: 2 })],
      block: { type: 'text', text: 'x', citations: [{ n: 1 }, { n: 2 }] },
    },
    { name: 'text with no delta', events: [S, textStart(0)], block: { type: 'text', text: '' } },
    {
      name: 'thinking with a signature split over two deltas',
      events: [S, thinkingStart(0), thinking(0, 'let me '), thinking(0, 'see'), signature(0, 'EqQB'), signature(0, 'xyz')],
      block: { type: 'thinking', thinking: 'let me see', signature: 'EqQBxyz' },
    },
    { name: 'redacted_thinking as started', events: [S, redactedStart(0, 'abc=')], block: { type: 'redacted_thinking', data: 'abc=' } },
    {
      name: 'tool_use with its input parsed',
      events: [S, toolStart(0, 'toolu_1', 'Read'), json(0, '{"path":'), json(0, ' "/tmp/ä"'), json(0, ', "n": [1,2]}')],
      block: { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: '/tmp/ä', n: [1, 2] } },
    },
    {
      name: 'tool_use with no delta: input {}',
      events: [S, toolStart(0, 'toolu_1', 'Read')],
      block: { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} },
    },
    {
      name: 'tool_use with only empty deltas: input {}',
      events: [S, toolStart(0, 'toolu_1', 'Read'), json(0, ''), json(0, '')],
      block: { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} },
    },
    {
      name: 'tool_use whose input does not parse: invalid, input {}, raw text kept',
      events: [S, toolStart(0, 'toolu_1', 'Read'), json(0, '{"path": "/tm')],
      block: {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'Read',
        input: {},
        invalid: { rawInput: '{"path": "/tm', reason: expect.stringContaining('not valid JSON') },
      },
    },
    {
      // Checked after the parse now: valid JSON that nests too deeply for a transcript line.
      name: 'tool_use whose input nests deeper than the cap: invalid, input {}, start of the raw text kept',
      events: [S, toolStart(0, 'toolu_1', 'Read'), json(0, `{"path":${'['.repeat(300)}${']'.repeat(300)}}`)],
      block: {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'Read',
        input: {},
        invalid: { rawInput: `{"path":${'['.repeat(192)}`, reason: expect.stringContaining('nests deeper than 256 levels') },
      },
    },
    ...(
      [
        ['an array', '[1, 2]'],
        ['null', 'null'],
        ['a number', '42'],
        ['a string', '"path"'],
      ] as const
    ).map(([kind, raw]) => ({
      name: `tool_use whose input is ${kind}: invalid`,
      events: [S, toolStart(0, 'toolu_1', 'Read'), json(0, raw)],
      block: {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'Read',
        input: {},
        invalid: { rawInput: raw, reason: `input must be a JSON object, got ${kind}` },
      },
    })),
  ];
  it.each(cases)('$name', ({ events, block }) => {
    expect(blockOf([...events, blockStop(0)])).toEqual(block);
  });
});

describe('assembly reducer: the message at message_stop', () => {
  it('has every block in index order, whatever order they stopped in, with stop reason and merged usage', () => {
    const message = lastMessage([
      messageStart({ input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 5 }),
      thinkingStart(0),
      thinking(0, 'plan'),
      signature(0, 's'),
      blockStop(0),
      textStart(1),
      toolStart(2, 'toolu_b', 'Glob'),
      text(1, 'Looking.'),
      json(2, '{"pattern":"*.ts"}'),
      blockStop(2),
      ping,
      blockStop(1),
      messageDelta('tool_use', { output_tokens: 77 }),
      messageStop,
    ]);
    expect(message).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [
        { type: 'thinking', thinking: 'plan', signature: 's' },
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', id: 'toolu_b', name: 'Glob', input: { pattern: '*.ts' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 77, cache_creation_input_tokens: 5 },
    });
  });

  it('keeps stop_sequence', () => {
    const message = lastMessage([messageStart(), messageDelta('stop_sequence', { output_tokens: 3 }, '###'), messageStop]);
    expect(message.stop_reason).toBe('stop_sequence');
    expect(message.stop_sequence).toBe('###');
    expect(message.content).toEqual([]);
  });

  it('carries an invalid tool_use without its marker, so it can be replayed as history', () => {
    const out = fold([
      messageStart(),
      toolStart(0, 'toolu_1', 'Read'),
      json(0, '{oops'),
      blockStop(0),
      messageDelta('tool_use'),
      messageStop,
    ]);
    const block = out.find((o) => o.type === 'block');
    expect(block?.type === 'block' && 'invalid' in block.block).toBe(true);
    const message = out.at(-1);
    expect(message?.type === 'message' && message.message.content).toEqual([
      { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} },
    ]);
  });

  it('stream_retry voids the partial message: the next attempt starts clean', () => {
    const message = lastMessage([
      messageStart(),
      textStart(0),
      text(0, 'partial answer'),
      retry,
      messageStart({ input_tokens: 10, output_tokens: 1 }, 'msg_2'),
      textStart(0),
      text(0, 'full answer'),
      blockStop(0),
      messageDelta('end_turn'),
      messageStop,
    ]);
    expect(message.id).toBe('msg_2');
    expect(message.content).toEqual([{ type: 'text', text: 'full answer' }]);
  });

  it('applyEvent updates the state it is given and returns it (linear: no copy per event)', () => {
    const state = createAssemblyState();
    const step = applyEvent(state, messageStart());
    expect(step.state).toBe(state);
    expect(step.emitted).toHaveLength(1);
  });

  it('assembles a 100k-delta tool input (chunks joined and parsed once)', () => {
    const value = 'x'.repeat(100_000);
    const raw = JSON.stringify({ value });
    const deltas = Array.from({ length: raw.length }, (_, i) => json(0, raw[i] as string));
    const block = blockOf([messageStart(), toolStart(0), ...deltas, blockStop(0)]);
    expect(block).toEqual({ type: 'tool_use', id: 'toolu_0', name: 'Read', input: { value } });
  });
});

describe('assembly reducer: typed errors at the offending event', () => {
  const S = messageStart();
  const cases: { name: string; events: TransportOutput[]; type: AssemblyErrorType; message: RegExp }[] = [
    { name: 'a delta for an index never started', events: [S, text(3, 'x')], type: 'delta_for_unknown_block', message: /index 3, which was never started/ },
    {
      name: 'a delta for a block already stopped',
      events: [S, textStart(0), blockStop(0), text(0, 'x')],
      type: 'delta_for_unknown_block',
      message: /already stopped/,
    },
    { name: 'a stop without a start', events: [S, blockStop(0)], type: 'stop_without_start', message: /never started/ },
    { name: 'a second stop', events: [S, textStart(0), blockStop(0), blockStop(0)], type: 'stop_without_start', message: /already stopped/ },
    { name: 'a second message_start', events: [S, S], type: 'duplicate_message_start', message: /second message_start/ },
    { name: 'text_delta on a tool_use block', events: [S, toolStart(0), text(0, 'x')], type: 'delta_type_mismatch', message: /text_delta for index 0, a tool_use block/ },
    { name: 'input_json_delta on a text block', events: [S, textStart(0), json(0, '{')], type: 'delta_type_mismatch', message: /input_json_delta/ },
    { name: 'thinking_delta on a text block', events: [S, textStart(0), thinking(0, 'x')], type: 'delta_type_mismatch', message: /thinking_delta/ },
    { name: 'signature_delta on a tool_use block', events: [S, toolStart(0), signature(0, 'x')], type: 'delta_type_mismatch', message: /signature_delta/ },
    { name: 'citations_delta on a thinking block', events: [S, thinkingStart(0), citation(0, {})], type: 'delta_type_mismatch', message: /citations_delta/ },
    { name: 'any delta on redacted_thinking', events: [S, redactedStart(0), thinking(0, 'x')], type: 'delta_type_mismatch', message: /redacted_thinking block/ },
    { name: 'a block started twice (open)', events: [S, textStart(0), textStart(0)], type: 'duplicate_block_start', message: /already started/ },
    // (Only the latest index taken again while nothing is open is repaired: see openSet.test.ts.)
    { name: 'a block started twice (stopped)', events: [S, textStart(0), blockStop(0), textStart(1), blockStop(1), toolStart(0)], type: 'duplicate_block_start', message: /already started/ },
    { name: 'content_block_start before message_start', events: [textStart(0)], type: 'event_before_message_start', message: /before message_start/ },
    { name: 'a delta before message_start', events: [text(0, 'x')], type: 'event_before_message_start', message: /before message_start/ },
    { name: 'a stop before message_start', events: [blockStop(0)], type: 'event_before_message_start', message: /before message_start/ },
    { name: 'message_delta before message_start', events: [messageDelta('end_turn')], type: 'event_before_message_start', message: /before message_start/ },
    { name: 'message_stop before message_start', events: [messageStop], type: 'event_before_message_start', message: /before message_start/ },
    { name: 'message_start after message_stop', events: [S, messageStop, S], type: 'duplicate_message_start', message: /second message_start/ },
    { name: 'a block after message_stop', events: [S, messageStop, textStart(0)], type: 'event_after_message_stop', message: /after message_stop/ },
  ];
  it.each(cases)('$name → $type', ({ events, type, message }) => {
    const thrown = captureError(events);
    expect(thrown).toBeInstanceOf(AssemblyError);
    expect(thrown).toMatchObject({ kind: 'assembly', type });
    expect((thrown as Error).message).toMatch(message);
    // The error belongs to the last event: everything before it folds cleanly.
    expect(() => fold(events.slice(0, -1))).not.toThrow();
  });

  it('an SSE error event that reaches assembly is an ApiError', () => {
    const thrown = captureError([S, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]);
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ errorType: 'overloaded_error', message: 'Overloaded', retryable: true });
  });
});

function captureError(events: readonly TransportOutput[]): unknown {
  try {
    fold(events);
  } catch (error) {
    return error;
  }
  throw new Error('expected the fold to throw');
}
