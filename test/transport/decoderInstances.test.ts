/**
 * Decoders share their code, never their state: the decoder handle and the observer of
 * `decodeSSE()` are class instances whose methods are shared by every stream (so their optimized
 * code outlives each stream), and one idle instance of each is kept for the life of the process.
 * Two streams decoded side by side, chunk by chunk, must each give exactly what they give alone.
 */
import { from, lastValueFrom, Subject, toArray, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import { decodeSSE } from '../../operators/decodeSSE.js';
import { createStreamEventDecoder, type DecodeBatch } from '../../src/transport/streamEventDecoder.js';
import { goldenBytes, goldenEvents, sseEvent } from './sseFixtures.js';

/** A second stream unlike the golden one: other ids, an escaped tool input, and a stray event before its end. */
const otherText = goldenEvents
  .map((event) => {
    const e = event as { type: string; message?: { id: string }; delta?: { type: string } };
    if (e.type === 'message_start') return sseEvent({ ...e, message: { ...e.message, id: 'msg_other' } });
    if (e.delta?.type === 'input_json_delta') return sseEvent({ ...e, delta: { type: 'input_json_delta', partial_json: '{"q":"a\\"b\\u00e9\\n' } }) + sseEvent({ ...e, delta: { type: 'input_json_delta', partial_json: '"}' } });
    return sseEvent(event);
  })
  .join('');
const otherBytes = new TextEncoder().encode(otherText);

function cut(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

function alone(chunks: readonly Uint8Array[]): DecodeBatch['outputs'] {
  const decoder = createStreamEventDecoder();
  const outputs = chunks.flatMap((chunk) => decoder.push(chunk).outputs);
  return [...outputs, ...decoder.end().outputs];
}

describe('decoders side by side', () => {
  it('two decoders fed in turn give what each gives alone', () => {
    const a = cut(goldenBytes, 7);
    const b = cut(otherBytes, 11);
    const first = createStreamEventDecoder();
    const second = createStreamEventDecoder();
    const outA: unknown[] = [];
    const outB: unknown[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i < a.length) outA.push(...first.push(a[i] as Uint8Array).outputs);
      if (i < b.length) outB.push(...second.push(b[i] as Uint8Array).outputs);
    }
    const endA = first.end();
    const endB = second.end();
    expect(endA.error).toBeUndefined();
    expect(endB.error).toBeUndefined();
    expect([...outA, ...endA.outputs]).toStrictEqual(alone(a));
    expect([...outB, ...endB.outputs]).toStrictEqual(alone(b));
  });

  it('two decodeSSE + assembleBlocks subscriptions fed in turn give what each gives alone', async () => {
    const a = cut(goldenBytes, 5);
    const b = cut(otherBytes, 9);
    const assembled = (chunks$: Observable<Uint8Array>) => lastValueFrom(chunks$.pipe(decodeSSE(), assembleBlocks(), toArray()));
    const [soloA, soloB] = [await assembled(from(a)), await assembled(from(b))];
    expect([soloA.at(-1)?.type, soloB.at(-1)?.type]).toStrictEqual(['message', 'message']);
    const inA = new Subject<Uint8Array>();
    const inB = new Subject<Uint8Array>();
    const sideA = assembled(inA);
    const sideB = assembled(inB);
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i < a.length) inA.next(a[i] as Uint8Array);
      if (i < b.length) inB.next(b[i] as Uint8Array);
    }
    inA.complete();
    inB.complete();
    expect(await sideA).toStrictEqual(soloA);
    expect(await sideB).toStrictEqual(soloB);
  });
});
