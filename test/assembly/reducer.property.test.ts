/**
 * Property: any valid event sequence (random blocks of each kind, deltas split anywhere, pings
 * anywhere) assembles to the same message and the same blocks as a plain reference fold.
 */
import fc from 'fast-check';
import { from, toArray } from 'rxjs';
import { expect, it } from 'vitest';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import type { StopReason } from '../../src/protocol/content.js';
import type { StreamEvent } from '../../src/protocol/events.js';

type GenBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; raw: string };

/** A string and the cut points to split it into deltas (empty pieces included: the API sends them). */
const splitString = (s: fc.Arbitrary<string>) =>
  s.chain((value) =>
    fc
      .array(fc.integer({ min: 0, max: value.length }), { maxLength: 8 })
      .map((cuts) => {
        const points = [...cuts].sort((a, b) => a - b);
        const pieces: string[] = [];
        let prev = 0;
        for (const p of points) {
          pieces.push(value.slice(prev, p));
          prev = p;
        }
        pieces.push(value.slice(prev));
        return pieces;
      }),
  );

const anyText = fc.string({ unit: 'binary', maxLength: 60 });
const toolInput = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 })).map((o) => JSON.stringify(o)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }, // mostly not JSON objects
  { weight: 1, arbitrary: fc.constantFrom('', '[]', 'null', '7', '"s"', '{}', '{"a":') },
);

const blockWithDeltas = fc.oneof(
  splitString(anyText).map((pieces) => ({ block: { type: 'text', text: pieces.join('') } as GenBlock, pieces })),
  fc
    .tuple(splitString(anyText), splitString(fc.base64String({ maxLength: 40 })))
    .map(([pieces, sig]) => ({ block: { type: 'thinking', thinking: pieces.join(''), signature: sig.join('') } as GenBlock, pieces, sig })),
  fc.base64String({ maxLength: 40 }).map((data) => ({ block: { type: 'redacted_thinking', data } as GenBlock, pieces: [] as string[] })),
  fc
    .tuple(fc.constantFrom('Read', 'Bash', 'Grep'), splitString(toolInput))
    .map(([name, pieces]) => ({ block: { type: 'tool_use', id: '', name, raw: pieces.join('') } as GenBlock, pieces })),
);

const scenario = fc.record({
  blocks: fc.array(blockWithDeltas, { maxLength: 6 }),
  stopReason: fc.constantFrom<StopReason>('end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'pause_turn', 'refusal'),
  inputTokens: fc.nat(100_000),
  outputTokens: fc.nat(100_000),
  pings: fc.array(fc.nat(), { maxLength: 3 }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function toEvents(s: Scenario): StreamEvent[] {
  const events: StreamEvent[] = [
    {
      type: 'message_start',
      message: {
        id: 'msg_p',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: s.inputTokens, output_tokens: 1 },
      },
    },
  ];
  s.blocks.forEach(({ block, pieces, ...rest }, index) => {
    switch (block.type) {
      case 'text':
        events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const text of pieces) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
        break;
      case 'thinking':
        events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } });
        for (const thinking of pieces) events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
        for (const signature of (rest as { sig: string[] }).sig) {
          events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature } });
        }
        break;
      case 'redacted_thinking':
        events.push({ type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: block.data } });
        break;
      case 'tool_use':
        events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: `toolu_${index}`, name: block.name, input: {} } });
        for (const partial_json of pieces) {
          events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
        }
        break;
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: s.stopReason, stop_sequence: null }, usage: { output_tokens: s.outputTokens } });
  events.push({ type: 'message_stop' });
  for (const p of s.pings) events.splice(1 + (p % events.length), 0, { type: 'ping' });
  return events;
}

/** The reference: the most obvious fold, string concatenation and all. */
function referenceFold(events: readonly StreamEvent[]) {
  let message: Record<string, unknown> = {};
  const content: Record<string, unknown>[] = [];
  const raw: Record<number, string> = {};
  const blockEvents: { index: number; block: unknown }[] = [];
  for (const e of events) {
    if (e.type === 'message_start') message = { ...e.message };
    else if (e.type === 'content_block_start') {
      content[e.index] = { ...e.content_block };
      raw[e.index] = '';
    } else if (e.type === 'content_block_delta') {
      const b = content[e.index] as Record<string, string>;
      if (e.delta.type === 'text_delta') b.text += e.delta.text;
      if (e.delta.type === 'thinking_delta') b.thinking += e.delta.thinking;
      if (e.delta.type === 'signature_delta') b.signature = (b.signature ?? '') + e.delta.signature;
      if (e.delta.type === 'input_json_delta') raw[e.index] += e.delta.partial_json;
    } else if (e.type === 'content_block_stop') {
      const b = content[e.index] as Record<string, unknown>;
      if (b.type === 'thinking' && b.signature === undefined) b.signature = '';
      let reported: unknown = b;
      if (b.type === 'tool_use') {
        const text = raw[e.index] ?? '';
        let input: unknown = {};
        let ok = true;
        if (text !== '') {
          try {
            input = JSON.parse(text);
          } catch {
            ok = false;
          }
        }
        ok &&= typeof input === 'object' && input !== null && !Array.isArray(input);
        b.input = ok ? input : {};
        reported = ok ? b : { ...b, invalid: { rawInput: text, reason: expect.any(String) } };
      }
      blockEvents.push({ index: e.index, block: reported });
    } else if (e.type === 'message_delta') {
      message.stop_reason = e.delta.stop_reason;
      message.stop_sequence = e.delta.stop_sequence;
      message.usage = { ...(message.usage as object), ...e.usage };
    }
  }
  return { message: { ...message, content }, blockEvents };
}

function assemble(events: readonly StreamEvent[]): AssemblyOutput[] {
  let out: AssemblyOutput[] = [];
  from(events).pipe(assembleBlocks(), toArray()).subscribe({ next: (v) => (out = v), error: (e) => { throw e; } });
  return out;
}

it('random valid event sequences assemble like the reference fold', () => {
  fc.assert(
    fc.property(scenario, (s) => {
      const events = toEvents(s);
      const outputs = assemble(events);
      const reference = referenceFold(events);
      expect(outputs.at(-1)).toEqual({ type: 'message', message: reference.message });
      expect(outputs.filter((o) => o.type === 'block').map((o) => o.type === 'block' && { index: o.index, block: o.block })).toEqual(
        reference.blockEvents,
      );
      // Every delta is reported, in order, and nothing is emitted for pings.
      const deltas = events.filter((e) => e.type === 'content_block_delta' && e.delta.type !== 'signature_delta').length;
      expect(outputs.filter((o) => o.type.endsWith('_delta') && o.type !== 'message_delta')).toHaveLength(deltas);
    }),
    { numRuns: 300 },
  );
});
