/**
 * `decodeSSE()` followed directly by `assembleBlocks()` decodes and assembles in one stage
 * (operators/internal/batchedOutputs.ts). That stage must be indistinguishable from the two stages
 * run apart (an identity `map` in between keeps them apart): the same outputs in the same
 * order, the same error, on random streams of valid, invalid and out-of-order events cut
 * anywhere, on the recorded corpus, and with an early unsubscribe (which must stop the source
 * at the same chunk).
 */
import fc from 'fast-check';
import { from, map, Observable, take, tap } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import { decodeSSE } from '../../operators/decodeSSE.js';
import { BatchedOutputs } from '../../operators/internal/batchedOutputs.js';
import { CORPUS_ABSENT_REASON, CORPUS_PRESENT, cutAt, cutAtRandom, readCorpusFile, seededRandom, streamEntries } from '../corpus/corpus.js';
import { messageStart } from './sseFixtures.js';

interface Outcome {
  readonly outputs: unknown[];
  readonly error?: { readonly name: string; readonly message: string };
  /** Chunks the source handed on before the stream ended. */
  readonly pulled: number;
}

/** Runs the chunks through decode + assemble, fused or apart, keeping at most `limit` outputs. */
function assemble(chunks: readonly Uint8Array[], fused: boolean, limit = Infinity): Outcome {
  let pulled = 0;
  const source$ = from(chunks).pipe(tap(() => pulled++));
  const decoded$ = source$.pipe(decodeSSE());
  const apart$ = fused ? decoded$ : decoded$.pipe(map((output) => output));
  const outputs: unknown[] = [];
  let error: Outcome['error'];
  const limited$ = Number.isFinite(limit) ? apart$.pipe(assembleBlocks(), take(limit)) : apart$.pipe(assembleBlocks());
  limited$.subscribe({
    next: (output) => outputs.push(output),
    error: (e: Error) => (error = { name: e.name, message: e.message }),
  });
  return error === undefined ? { outputs, pulled } : { outputs, error, pulled };
}

const frame = (name: string, data: string): string => `event: ${name}\ndata: ${data}\n\n`;

/** Strings rich in what JSON escapes, and chunk cuts land inside: quotes, backslashes, controls, surrogates. */
const tricky = fc
  .array(fc.oneof(fc.constantFrom('"', '\\', '\n', '\t', '\u0007', 'é', '日', '🙂', '\ud83d', '{"a":', '}'), fc.string({ maxLength: 6 })), { maxLength: 8 })
  .map((parts) => parts.join(''));

/** One wire event: mostly what a real response carries, sometimes what breaks it. */
const wireEvent = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.nat({ max: 2 }), tricky).map(([index, text]) => frame('content_block_delta', JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }))) },
  { weight: 3, arbitrary: fc.tuple(fc.nat({ max: 2 }), tricky).map(([index, partial_json]) => frame('content_block_delta', JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }))) },
  { weight: 2, arbitrary: fc.nat({ max: 2 }).map((index) => frame('content_block_start', JSON.stringify({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }))) },
  { weight: 2, arbitrary: fc.nat({ max: 2 }).map((index) => frame('content_block_start', JSON.stringify({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: `toolu_${index}`, name: 'Read', input: {} } }))) },
  { weight: 2, arbitrary: fc.nat({ max: 2 }).map((index) => frame('content_block_stop', JSON.stringify({ type: 'content_block_stop', index }))) },
  { weight: 1, arbitrary: fc.constant(frame('ping', '{"type":"ping"}')) },
  { weight: 1, arbitrary: fc.constant(frame('message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}')) },
  { weight: 1, arbitrary: fc.constant(frame('message_start', JSON.stringify(messageStart))) },
  { weight: 1, arbitrary: fc.constant(frame('message_stop', '{"type":"message_stop"}')) },
  { weight: 1, arbitrary: fc.constantFrom(frame('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\x"}}'), frame('mystery', '{}'), 'data: {not json}\n\n', ': a comment\n') },
);

const streamArb = fc
  .record({ events: fc.array(wireEvent, { maxLength: 25 }), tidy: fc.boolean(), cuts: fc.array(fc.nat(), { maxLength: 10 }) })
  .map(({ events, tidy, cuts }) => {
    // Half the streams are framed as a response (start … stop), so they get past the first event.
    const text = tidy ? frame('message_start', JSON.stringify(messageStart)) + events.join('') + frame('message_stop', '{"type":"message_stop"}') : events.join('');
    const bytes = new TextEncoder().encode(text);
    return cutAt(bytes, cuts);
  });

describe('decodeSSE + assembleBlocks in one stage', () => {
  it('is used exactly when assembleBlocks follows decodeSSE directly', () => {
    expect(from(['']).pipe(decodeSSE())).toBeInstanceOf(BatchedOutputs);
    expect(from(['']).pipe(decodeSSE(), map((o) => o))).not.toBeInstanceOf(BatchedOutputs);
  });

  it('gives the same outputs and the same error as the two stages apart, on random streams cut anywhere', () => {
    fc.assert(
      fc.property(streamArb, (chunks) => {
        expect(assemble(chunks, true)).toStrictEqual(assemble(chunks, false));
      }),
      { numRuns: 500 },
    );
  });

  it('stops the source at the same chunk when the consumer takes only the first outputs', () => {
    fc.assert(
      fc.property(streamArb, fc.nat({ max: 12 }), (chunks, limit) => {
        expect(assemble(chunks, true, limit + 1)).toStrictEqual(assemble(chunks, false, limit + 1));
      }),
      { numRuns: 300 },
    );
  });

  it('is cold: each subscription decodes and assembles its own response', () => {
    let subscribed = 0;
    const text = frame('message_start', JSON.stringify(messageStart)) + frame('message_stop', '{"type":"message_stop"}');
    const stream$ = new Observable<string>((subscriber) => {
      subscribed++;
      subscriber.next(text);
      subscriber.complete();
    }).pipe(decodeSSE(), assembleBlocks());
    const types = (): string[] => {
      const seen: string[] = [];
      stream$.subscribe((output) => seen.push(output.type));
      return seen;
    };
    expect(types()).toStrictEqual(['message_start', 'message']);
    expect(types()).toStrictEqual(['message_start', 'message']);
    expect(subscribed).toBe(2);
  });
});

describe.skipIf(!CORPUS_PRESENT)(`the recorded corpus in one stage${CORPUS_PRESENT ? '' : ` (skipped: ${CORPUS_ABSENT_REASON})`}`, () => {
  it('assembles every recording as the two stages apart do, whole and cut at random', () => {
    const entries = streamEntries();
    expect(entries.length).toBeGreaterThan(0);
    const random = seededRandom(61);
    let messages = 0;
    for (const entry of entries) {
      const bytes = readCorpusFile(entry.file);
      const reference = assemble([bytes], false);
      messages += reference.outputs.filter((o) => (o as { type: string }).type === 'message').length;
      expect(assemble([bytes], true), entry.file).toStrictEqual(reference);
      for (let run = 0; run < 3; run++) {
        const chunks = cutAtRandom(bytes, 1 + Math.floor(random() * 40), random);
        expect(assemble(chunks, true), entry.file).toStrictEqual(assemble(chunks, false));
      }
    }
    // The comparison means something only if the recordings assemble into messages.
    expect(messages).toBeGreaterThan(50);
  });
});
