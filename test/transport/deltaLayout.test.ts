/**
 * Exactness of the delta fast path (`src/protocol/deltaLayout.ts`): whatever it accepts, it
 * decodes to exactly what `JSON.parse` gives; whatever else it sees, it leaves to the full parse.
 * And the decoder with the fast path emits exactly what the full-parse decoder emits, on random
 * streams cut anywhere (escapes and surrogate pairs split across chunks, padded `data:` lines)
 * and on the recorded corpus.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchDeltaLayout } from '../../src/protocol/deltaLayout.js';
import { createStreamEventDecoder, type DecodeBatch } from '../../src/transport/streamEventDecoder.js';
import { CORPUS_ABSENT_REASON, CORPUS_PRESENT, cutAt, cutAtRandom, readCorpusFile, seededRandom, streamEntries } from '../corpus/corpus.js';

const LAYOUTS = [
  ['text_delta', 'text'],
  ['input_json_delta', 'partial_json'],
  ['thinking_delta', 'thinking'],
  ['signature_delta', 'signature'],
] as const;

/** Strings rich in what JSON escapes or splits: quotes, backslashes, controls, U+2028, astral and lone surrogates. */
const trickyString = fc
  .array(
    fc.oneof(
      fc.constantFrom('"', '\\', '\n', '\r', '\t', '\u0000', '\u001f', '\u007f', '\u2028', '/', 'é', '日', '🙂', '\ud83d', '\ude00', 'a', ' ', '}}', '"}}'),
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
      fc.string(),
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(''));

const layoutEvent = fc.record({
  layout: fc.constantFrom(...LAYOUTS),
  index: fc.oneof(fc.nat({ max: 20 }), fc.nat()),
  value: trickyString,
});

function dataOf({ layout, index, value }: { layout: (typeof LAYOUTS)[number]; index: number; value: string }): string {
  return JSON.stringify({ type: 'content_block_delta', index, delta: { type: layout[0], [layout[1]]: value } });
}

/** JSON.parse of `data`, or `undefined` when it is not JSON. */
function parsed(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

describe('matchDeltaLayout', () => {
  it('decodes every event of the fixed layouts exactly as JSON.parse does', () => {
    fc.assert(
      fc.property(layoutEvent, (event) => {
        const data = dataOf(event);
        expect(matchDeltaLayout(data)).toStrictEqual(JSON.parse(data));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads escapes the API may write in another form than JSON.stringify does', () => {
    const cases = [
      ['\\u0041\\u00e9\\/', 'Aé/'],
      ['\\ud83d\\ude00', '😀'],
      ['\\ud83d', '\ud83d'], // a lone surrogate, as JSON.parse keeps it
      ['\\ude00x', '\ude00x'],
      ['\\b\\f\\n\\r\\t\\"\\\\', '\b\f\n\r\t"\\'],
      ['', ''],
    ] as const;
    for (const [literal, value] of cases) {
      const data = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${literal}"}}`;
      expect(matchDeltaLayout(data)).toStrictEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: value } });
      expect(matchDeltaLayout(data)).toStrictEqual(JSON.parse(data));
    }
  });

  it('finds the literal of each layout after an index of any width (its start is counted, not matched)', () => {
    for (const [type, field] of LAYOUTS) {
      for (const index of [0, 7, 42, 999_999, 123_456_789_012_345]) {
        for (const literal of ['', 'x', '\\"q\\"', '\\u00e9x', 'plain text', 'a\\nb']) {
          const data = `{"type":"content_block_delta","index":${index},"delta":{"type":"${type}","${field}":"${literal}"}}`;
          expect(matchDeltaLayout(data), data).toStrictEqual(JSON.parse(data));
        }
      }
    }
  });

  it('leaves everything it does not match exactly to the full parse', () => {
    const base = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}';
    const others = [
      ' ' + base, // padded (the second space of "data:  {...}")
      base + ' ',
      base.replace('"index":0', '"index": 0'),
      base.replace('"index":0', '"index":01'),
      base.replace('"index":0', '"index":-1'),
      base.replace('"index":0', '"index":1.5'),
      base.replace('"index":0', '"index":1e2'),
      base.replace('"index":0', '"index":1234567890123456'),
      base.replace('}}', ',"extra":1}}'),
      base.replace('"hi"}', '"hi","extra":"x"}'),
      base.replace('text_delta', 'citations_delta'),
      base.replace('"text":"hi"', '"text":"h\\xi"'), // invalid escape: JSON.parse fails too
      base.replace('"text":"hi"', '"text":"h\\u12G4"'),
      base.replace('"text":"hi"', '"text":"h\ni"'), // a raw newline is not JSON
      base.replace('"text":"hi"', '"text":"h"i"'),
      base.replace('"text":"hi"', '"text":"hi\\"'),
      '{"type":"content_block_delta","delta":{"type":"text_delta","text":"hi"},"index":0}',
      '{"type":"content_block_delta","index":0,"delta":{"text":"hi","type":"text_delta"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}',
      '',
    ];
    for (const data of others) expect(matchDeltaLayout(data), data).toBeUndefined();
  });

  it('never accepts what JSON.parse rejects, nor decodes differently, on random mutations', () => {
    const mutated = fc
      .tuple(layoutEvent, fc.array(fc.tuple(fc.nat(), fc.nat({ max: 2 }), fc.constantFrom('"', '\\', 'u', '0', 'F', '}', ' ', '\n', 'x', '1', ',')), { maxLength: 4 }))
      .map(([event, edits]) => {
        let data = dataOf(event);
        for (const [where, kind, char] of edits) {
          const at = where % (data.length + 1);
          if (kind === 0) data = data.slice(0, at) + char + data.slice(at);
          else if (kind === 1) data = data.slice(0, at) + data.slice(at + 1);
          else data = data.slice(0, at) + char + data.slice(at + 1);
        }
        return data;
      });
    fc.assert(
      fc.property(mutated, (data) => {
        const fast = matchDeltaLayout(data);
        if (fast !== undefined) expect(fast).toStrictEqual(parsed(data));
      }),
      { numRuns: 5000 },
    );
  });
});

// ---- the decoder, fast path against full parse ------------------------------------------------

interface Outcome {
  readonly outputs: unknown[];
  readonly error?: { name: string; message: string };
}

function decodeAll(chunks: readonly (Uint8Array | string)[], fastDeltas: boolean): Outcome {
  const decoder = createStreamEventDecoder({ fastDeltas });
  const outputs: unknown[] = [];
  let error: Outcome['error'];
  const take = (batch: DecodeBatch): void => {
    outputs.push(...batch.outputs);
    if (batch.error !== undefined && error === undefined) error = { name: batch.error.name, message: batch.error.message };
  };
  for (const chunk of chunks) take(decoder.push(chunk));
  take(decoder.end());
  return error === undefined ? { outputs } : { outputs, error };
}

const messageStart = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } };

/** An SSE frame; `padded` writes `data:  {…}` (the parser strips one space, JSON.parse the rest). */
function frame(name: string, data: string, padded: boolean, crlf: boolean): string {
  const nl = crlf ? '\r\n' : '\n';
  return `event: ${name}${nl}data:${padded ? '  ' : ' '}${data}${nl}${nl}`;
}

const streamArb = fc
  .record({
    deltas: fc.array(fc.tuple(layoutEvent, fc.boolean(), fc.boolean()), { maxLength: 30 }),
    beforeStart: fc.boolean(),
    afterStop: fc.boolean(),
    crlf: fc.boolean(),
    cuts: fc.array(fc.nat(), { maxLength: 12 }),
  })
  .map(({ deltas, beforeStart, afterStop, crlf, cuts }) => {
    let text = '';
    const delta = (event: Parameters<typeof dataOf>[0], padded: boolean) => frame('content_block_delta', dataOf(event), padded, crlf);
    if (beforeStart && deltas[0] !== undefined) text += delta(deltas[0][0], false);
    text += frame('message_start', JSON.stringify(messageStart), false, crlf);
    for (const [event, padded, ping] of deltas) {
      text += delta(event, padded);
      if (ping) text += frame('ping', '{"type":"ping"}', false, crlf);
    }
    text += frame('message_stop', '{"type":"message_stop"}', false, crlf);
    if (afterStop && deltas[0] !== undefined) text += delta(deltas[0][0], false);
    const bytes = new TextEncoder().encode(text);
    return cutAt(bytes, cuts);
  });

describe('createStreamEventDecoder: fast deltas against the full parse', () => {
  it('emits the same events and the same error on random streams cut anywhere', () => {
    fc.assert(
      fc.property(streamArb, (chunks) => {
        expect(decodeAll(chunks, true)).toStrictEqual(decodeAll(chunks, false));
      }),
      { numRuns: 400 },
    );
  });

  it('cuts inside an escape and between the halves of a surrogate pair', () => {
    const text =
      frame('message_start', JSON.stringify(messageStart), false, false) +
      frame('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\u00e9\\ud83d\\ude00\\n🙂"}}', false, false) +
      frame('message_stop', '{"type":"message_stop"}', false, false);
    const bytes = new TextEncoder().encode(text);
    const whole = decodeAll([bytes], false);
    expect(whole.outputs[1]).toStrictEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'aé😀\n🙂' } });
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(decodeAll([bytes.subarray(0, cut), bytes.subarray(cut)], true)).toStrictEqual(whole);
    }
  });
});

/** The `data:` payloads of a recording as the SSE parser passes them on (one leading space stripped). */
function recordedDataLines(bytes: Uint8Array): string[] {
  return new TextDecoder()
    .decode(bytes)
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
}

describe.skipIf(!CORPUS_PRESENT)(`the recorded corpus, fast deltas against the full parse${CORPUS_PRESENT ? '' : ` (skipped: ${CORPUS_ABSENT_REASON})`}`, () => {
  it('decodes every recording the same way, whole and cut at random', () => {
    const entries = streamEntries();
    expect(entries.length).toBeGreaterThan(0);
    const random = seededRandom(20);
    let matched = 0;
    for (const entry of entries) {
      const bytes = readCorpusFile(entry.file);
      const reference = decodeAll([bytes], false);
      matched += recordedDataLines(bytes).filter((data) => matchDeltaLayout(data) !== undefined).length;
      expect(decodeAll([bytes], true), entry.file).toStrictEqual(reference);
      for (let run = 0; run < 5; run++) {
        expect(decodeAll(cutAtRandom(bytes, 1 + Math.floor(random() * 40), random), true), entry.file).toStrictEqual(reference);
      }
    }
    // The comparison means something only if the recordings take the fast path.
    expect(matched).toBeGreaterThan(100);
  });
});
