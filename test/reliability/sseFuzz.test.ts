/**
 * SSE fuzzing: valid recorded streams (from the scripted server's own encoder), mutated, through
 * `decodeSSE()` + `assembleBlocks()`. Harmless mutations (line endings, comments, `retry:`/`id:`
 * fields, pings, unknown events, blank lines, a BOM, any chunking) must give the very same
 * message; harmful ones (byte flips, truncations, duplicated/reordered/dropped events, huge or
 * misplaced deltas, invalid UTF-8) must give a well-formed message or a typed `RxAgentError`.
 * Never a foreign exception, never a hang (the pipeline is synchronous over `from()`, so it must
 * have finished when `subscribe` returns), never unbounded buffering (the decoder's cap).
 */
import fc from 'fast-check';
import { from } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import { RxAgentError, StreamProtocolError } from '../../src/errors.js';
import type { AssistantMessage } from '../../src/protocol/content.js';
import { encodeSSE, scriptedMessageToEvents } from '../../src/testing/encodeScript.js';
import type { ScriptedBlock, ScriptedMessage } from '../../src/testing/script.js';
import { decodeSSE } from '../../operators/decodeSSE.js';
import { fcParams } from './fcConfig.js';

interface Outcome {
  readonly finished: boolean;
  readonly message?: AssistantMessage;
  readonly messages: number;
  readonly error?: unknown;
}

/** Runs the synchronous pipeline; `finished` is false when it did not end within `subscribe`. */
function run(chunks: readonly (Uint8Array | string)[], maxBufferSize?: number): Outcome {
  let finished = false;
  let message: AssistantMessage | undefined;
  let messages = 0;
  let error: unknown;
  let thrown: unknown;
  try {
    from(chunks)
      .pipe(decodeSSE(maxBufferSize === undefined ? {} : { maxBufferSize }), assembleBlocks())
      .subscribe({
        next: (out: AssemblyOutput) => {
          if (out.type === 'message') {
            messages++;
            message = out.message;
          }
        },
        error: (e: unknown) => {
          error = e;
          finished = true;
        },
        complete: () => {
          finished = true;
        },
      });
  } catch (e) {
    thrown = e;
  }
  if (thrown !== undefined) return { finished: true, messages, error: thrown };
  return { finished, messages, ...(message ? { message } : {}), ...(error !== undefined ? { error } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Valid streams
// ---------------------------------------------------------------------------------------------

const textArb = fc.string({ unit: 'grapheme', maxLength: 40 });
const chunkArb = fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined });

const blockArb: fc.Arbitrary<ScriptedBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text: textArb, chunkSize: chunkArb }),
  fc.record({ type: fc.constant('thinking' as const), thinking: textArb, chunkSize: chunkArb }),
  fc.record({
    type: fc.constant('tool_use' as const),
    name: fc.constantFrom('Read', 'Bash', 'do_it'),
    input: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    chunkSize: chunkArb,
  }),
).map((b) => (b.chunkSize === undefined ? (({ chunkSize: _c, ...rest }) => rest)(b) : b) as ScriptedBlock);

const messageArb: fc.Arbitrary<ScriptedMessage> = fc
  .array(blockArb, { maxLength: 4 })
  .map((blocks) => ({ kind: 'message' as const, blocks }));

/** One SSE frame per event, exactly as the scripted server writes them. */
function framesOf(msg: ScriptedMessage): string[] {
  return scriptedMessageToEvents(msg, { model: 'claude-fuzz' }).map((e) => encodeSSE(e.event));
}

const utf8 = new TextEncoder();

function chunked(bytes: Uint8Array, sizes: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = Math.max(1, sizes.length === 0 ? bytes.length : (sizes[i % sizes.length] ?? 1));
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

const sizesArb = fc.array(fc.integer({ min: 1, max: 97 }), { maxLength: 12 });

// ---------------------------------------------------------------------------------------------
// Harmless mutations
// ---------------------------------------------------------------------------------------------

type Harmless =
  | { readonly k: 'comment'; readonly at: number; readonly text: string }
  | { readonly k: 'field'; readonly at: number; readonly line: string }
  | { readonly k: 'ping'; readonly at: number }
  | { readonly k: 'unknown_event'; readonly at: number }
  | { readonly k: 'blank'; readonly at: number }
  | { readonly k: 'comment_inside'; readonly at: number };

const commentText = fc.string({ maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, ' '));
const harmlessArb: fc.Arbitrary<Harmless> = fc.oneof(
  fc.record({ k: fc.constant('comment' as const), at: fc.nat(), text: commentText }),
  fc.record({
    k: fc.constant('field' as const),
    at: fc.nat(),
    line: fc.constantFrom('retry: 3000', 'retry: soon', 'id: 42', 'id:', 'unknownfield: x', 'retry'),
  }),
  fc.record({ k: fc.constant('ping' as const), at: fc.nat() }),
  fc.record({ k: fc.constant('unknown_event' as const), at: fc.nat() }),
  fc.record({ k: fc.constant('blank' as const), at: fc.nat() }),
  fc.record({ k: fc.constant('comment_inside' as const), at: fc.nat() }),
);

function applyHarmless(frames: readonly string[], m: Harmless): string[] {
  const out = [...frames];
  // Anywhere after message_start; events (pings, unknown types) also before message_stop, since
  // the decoder rightly treats anything after message_stop as out of order.
  const stop = out.findIndex((f) => f.startsWith('event: message_stop'));
  const at = m.k === 'ping' || m.k === 'unknown_event' ? (m.at % stop) + 1 : (m.at % out.length) + 1;
  switch (m.k) {
    case 'comment':
      out.splice(at, 0, `:${m.text}\n`);
      break;
    case 'field':
      out.splice(at, 0, `${m.line}\n`);
      break;
    case 'ping':
      out.splice(at, 0, 'event: ping\ndata: {"type":"ping"}\n\n');
      break;
    case 'unknown_event':
      out.splice(at, 0, 'event: future_event\ndata: {"type":"future_event","x":1}\n\n');
      break;
    case 'blank':
      out.splice(at, 0, '\n');
      break;
    case 'comment_inside': {
      const i = at - 1;
      const frame = out[i] ?? '';
      const nl = frame.indexOf('\n');
      out[i] = `${frame.slice(0, nl + 1)}: inside\n${frame.slice(nl + 1)}`;
      break;
    }
  }
  return out;
}

function withLineEndings(text: string, ending: 'lf' | 'crlf' | 'cr'): string {
  if (ending === 'lf') return text;
  return text.replace(/\n/g, ending === 'crlf' ? '\r\n' : '\r');
}

// ---------------------------------------------------------------------------------------------
// Harmful mutations
// ---------------------------------------------------------------------------------------------

type Harmful =
  | { readonly k: 'flip'; readonly at: number; readonly xor: number }
  | { readonly k: 'truncate'; readonly at: number }
  | { readonly k: 'duplicate'; readonly at: number }
  | { readonly k: 'swap'; readonly a: number; readonly b: number }
  | { readonly k: 'drop'; readonly at: number }
  | { readonly k: 'huge_delta'; readonly at: number; readonly index: number; readonly size: number; readonly kind: 'text_delta' | 'thinking_delta' | 'input_json_delta' }
  | { readonly k: 'bad_utf8'; readonly at: number; readonly bytes: readonly number[] }
  | { readonly k: 'garbage_event'; readonly at: number; readonly data: string };

const harmfulArb: fc.Arbitrary<Harmful> = fc.oneof(
  fc.record({ k: fc.constant('flip' as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ k: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ k: fc.constant('duplicate' as const), at: fc.nat() }),
  fc.record({ k: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ k: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({
    k: fc.constant('huge_delta' as const),
    at: fc.nat(),
    index: fc.integer({ min: 0, max: 5 }),
    size: fc.integer({ min: 10_000, max: 300_000 }),
    kind: fc.constantFrom('text_delta' as const, 'thinking_delta' as const, 'input_json_delta' as const),
  }),
  fc.record({
    k: fc.constant('bad_utf8' as const),
    at: fc.nat(),
    bytes: fc.constantFrom([0xff], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x8c], [0xed, 0xa0, 0x80], [0xc0, 0xaf]),
  }),
  fc.record({
    k: fc.constant('garbage_event' as const),
    at: fc.nat(),
    data: fc.oneof(
      fc.constantFrom('{', 'null', '42', '"str"', '[]', '{"type":7}', '{"type":"content_block_delta"}', '{"type":"content_block_delta","index":9,"delta":{"type":"text_delta","text":"x"}}', '{"type":"content_block_stop","index":9}', '{"type":"message_start"}', '{"type":"error","error":{"type":"overloaded_error","message":"busy"}}'),
      fc.string({ maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, '')),
    ),
  }),
);

const deltaField = { text_delta: 'text', thinking_delta: 'thinking', input_json_delta: 'partial_json' } as const;

/** Applies a frame-level harmful mutation, or returns undefined for byte-level ones. */
function applyFrameHarm(frames: readonly string[], m: Harmful): string[] | undefined {
  const out = [...frames];
  const n = out.length;
  switch (m.k) {
    case 'duplicate': {
      const f = out[m.at % n] ?? '';
      out.splice(m.at % n, 0, f);
      return out;
    }
    case 'swap': {
      const a = m.a % n;
      const b = m.b % n;
      [out[a], out[b]] = [out[b] ?? '', out[a] ?? ''];
      return out;
    }
    case 'drop':
      out.splice(m.at % n, 1);
      return out;
    case 'huge_delta': {
      const event = {
        type: 'content_block_delta',
        index: m.index,
        delta: { type: m.kind, [deltaField[m.kind]]: 'x'.repeat(m.size) },
      };
      out.splice(m.at % (n + 1), 0, encodeSSE(event));
      return out;
    }
    case 'garbage_event':
      out.splice(m.at % (n + 1), 0, `event: content_block_delta\ndata: ${m.data}\n\n`);
      return out;
    case 'flip':
    case 'truncate':
    case 'bad_utf8':
      return undefined;
  }
}

function applyByteHarm(bytes: Uint8Array, m: Harmful): Uint8Array {
  switch (m.k) {
    case 'flip': {
      const copy = bytes.slice();
      const i = m.at % copy.length;
      copy[i] = (copy[i] ?? 0) ^ m.xor;
      return copy;
    }
    case 'truncate':
      return bytes.subarray(0, m.at % bytes.length);
    case 'bad_utf8': {
      const i = m.at % (bytes.length + 1);
      const copy = new Uint8Array(bytes.length + m.bytes.length);
      copy.set(bytes.subarray(0, i), 0);
      copy.set(m.bytes, i);
      copy.set(bytes.subarray(i), i + m.bytes.length);
      return copy;
    }
    default:
      return bytes;
  }
}

/** The contract for any input: finished, and either one well-formed message or a typed error. */
function expectWellBehaved(outcome: Outcome): void {
  expect(outcome.finished).toBe(true);
  if (outcome.error !== undefined) {
    if (!(outcome.error instanceof RxAgentError)) {
      throw new Error(`a foreign error escaped the pipeline: ${String((outcome.error as Error)?.stack ?? outcome.error)}`);
    }
    expect(typeof outcome.error.kind).toBe('string');
    expect(outcome.error.message.length).toBeGreaterThan(0);
  } else {
    expect(outcome.messages).toBe(1);
    expect(Array.isArray(outcome.message?.content)).toBe(true);
    expect(outcome.message?.role).toBe('assistant');
  }
}

describe('SSE fuzzing: decodeSSE + assembleBlocks', () => {
  it('harmless mutations, any line endings and any chunking give the same message', () => {
    fc.assert(
      fc.property(
        messageArb,
        fc.array(harmlessArb, { maxLength: 6 }),
        fc.constantFrom('lf' as const, 'crlf' as const, 'cr' as const),
        fc.boolean(),
        sizesArb,
        (msg, mutations, ending, bom, sizes) => {
          const frames = framesOf(msg);
          const expected = run([frames.join('')]);
          expect(expected.error).toBeUndefined();
          expect(expected.messages).toBe(1);

          const mutated = mutations.reduce(applyHarmless, frames);
          const text = (bom ? '\uFEFF' : '') + withLineEndings(mutated.join(''), ending);
          const outcome = run(chunked(utf8.encode(text), sizes));
          expect(outcome.finished).toBe(true);
          expect(outcome.error).toBeUndefined();
          expect(outcome.messages).toBe(1);
          expect(outcome.message).toEqual(expected.message);
        },
      ),
      fcParams(300),
    );
  });

  it('harmful mutations give a well-formed message or a typed RxAgentError, never a crash or a hang', () => {
    fc.assert(
      fc.property(
        messageArb,
        fc.array(harmfulArb, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('lf' as const, 'crlf' as const, 'cr' as const),
        sizesArb,
        (msg, mutations, ending, sizes) => {
          let frames = framesOf(msg);
          const byteMutations: Harmful[] = [];
          for (const m of mutations) {
            const next = applyFrameHarm(frames, m);
            if (next === undefined) byteMutations.push(m);
            else frames = next;
          }
          let bytes: Uint8Array = utf8.encode(withLineEndings(frames.join(''), ending));
          for (const m of byteMutations) bytes = applyByteHarm(bytes, m);
          expectWellBehaved(run(chunked(bytes, sizes)));
        },
      ),
      fcParams(400),
    );
  });

  it('a valid multi-byte character split at every byte boundary gives the same message', () => {
    fc.assert(
      fc.property(messageArb, fc.integer({ min: 1, max: 9 }), (msg, size) => {
        const text = framesOf(msg).join('');
        const expected = run([text]);
        const outcome = run(chunked(utf8.encode(text), [size]));
        expect(outcome.error).toBeUndefined();
        expect(outcome.message).toEqual(expected.message);
      }),
      fcParams(100),
    );
  });

  it('invalid UTF-8 inside a text delta becomes U+FFFD, even when split across chunks', () => {
    const msg: ScriptedMessage = { kind: 'message', blocks: [{ type: 'text', text: 'AB' }] };
    const text = framesOf(msg).join('');
    const bytes = utf8.encode(text);
    const at = text.indexOf('"AB"') + 2; // between A and B (ASCII: byte offset = char offset)
    const broken = new Uint8Array([...bytes.subarray(0, at), 0xe2, 0x82, ...bytes.subarray(at)]);
    for (let cut = at; cut <= at + 2; cut++) {
      const outcome = run([broken.subarray(0, cut), broken.subarray(cut)]);
      expect(outcome.error).toBeUndefined();
      expect(outcome.message?.content).toEqual([{ type: 'text', text: 'A\uFFFDB' }]);
    }
  });

  it('a huge line without a newline fails with buffer_overflow instead of buffering forever', () => {
    const start = framesOf({ kind: 'message', blocks: [] })[0] ?? '';
    const megabyte = 'x'.repeat(1024 * 1024);
    // 12 MiB of one line, past the default 8 MiB cap: the error comes at the chunk that crosses it.
    let pushed = 0;
    const chunks: string[] = [start, 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"'];
    for (let i = 0; i < 12; i++) chunks.push(megabyte);
    let error: unknown;
    from(chunks)
      .pipe(decodeSSE())
      .subscribe({ next: () => pushed++, error: (e: unknown) => (error = e) });
    expect(pushed).toBe(1); // message_start came out before the fault
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect((error as StreamProtocolError).type).toBe('buffer_overflow');
    expect((error as Error).message).toMatch(/buffer/);
  });

  it('many data lines without a blank line are capped too (the parser joins them)', () => {
    const start = framesOf({ kind: 'message', blocks: [] })[0] ?? '';
    const outcome = run([start, ...Array.from({ length: 200 }, () => `data: ${'y'.repeat(1000)}\n`)], 64 * 1024);
    expect(outcome.error).toBeInstanceOf(StreamProtocolError);
    expect((outcome.error as StreamProtocolError).type).toBe('buffer_overflow');
  });

  it('a huge delta under the cap is accepted whole', () => {
    const big = 'z'.repeat(3 * 1024 * 1024);
    const outcome = run(framesOf({ kind: 'message', blocks: [{ type: 'text', text: big }] }));
    expect(outcome.error).toBeUndefined();
    expect(outcome.message?.content).toEqual([{ type: 'text', text: big }]);
  });
});
