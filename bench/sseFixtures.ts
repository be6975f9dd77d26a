/**
 * The bytes the assembly benchmarks stream: generated, seeded (the same bytes every run), and
 * shaped like the recorded API streams rather than like a tidy test script:
 *
 * - token-sized deltas of varying length (1-12 characters of text, 2-40 of tool input), not one
 *   fixed chunk size;
 * - `ping` events in between (the API sends one early and more during long replies);
 * - non-ASCII text (accents, CJK, emoji as surrogate pairs) and everything JSON escapes (quotes,
 *   backslashes, newlines, tabs, control characters as `\u00XX`), because tool inputs carry code;
 * - the body cut into network chunks of random sizes (log-uniform, 64 B to 16 KiB), anywhere:
 *   inside a line, an escape or a UTF-8 sequence.
 */
import { encodeSSEStream } from '../src/testing/encodeScript.js';
import type { StreamEvent } from '../src/protocol/events.js';
import { seededRandom } from './harness.js';

type Random = () => number;

const PROSE = ['the', 'model', 'reads', 'a', 'file', 'and', 'then', 'edits', 'it,', 'carefully.', 'Next', 'step:', 'tests', 'pass', '—', 'ok', 'résumé', 'naïve', '日本語の', 'テキスト', '🙂', '“quoted”', 'Straße', '½'];
const CODE = ['const', 'value', 'return', '"quoted"', 'path\\to\\file', 'résumé', '=>', '{', '}', 'await', 'map((x) =>', '// why:', '日本', '\t', '🚀', "'single'", '\u0007', 'a\\nb'];

function words(list: readonly string[], chars: number, random: Random, newlineRate: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = list[Math.floor(random() * list.length)] as string;
    const sep = random() < newlineRate ? '\n' : ' ';
    parts.push(word, sep);
    length += word.length + sep.length;
  }
  return parts.join('');
}

/** Splits into pieces of `min`-`max` UTF-16 units, never between the halves of a surrogate pair. */
function tokenPieces(text: string, min: number, max: number, random: Random): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + min + Math.floor(random() * (max - min + 1)));
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}

type BlockSpec =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thinking'; readonly thinking: string }
  | { readonly type: 'tool_use'; readonly name: string; readonly input: Record<string, unknown> };

/** The stream events of one response with these blocks, a ping every ~`pingEvery` events. */
function responseEvents(blocks: readonly BlockSpec[], random: Random, pingEvery = 300): StreamEvent[] {
  const events: StreamEvent[] = [
    {
      type: 'message_start',
      message: { id: 'msg_bench', type: 'message', role: 'assistant', model: 'claude-bench-scripted', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1200, output_tokens: 1 } },
    },
    { type: 'ping' },
  ];
  const delta = (event: StreamEvent): void => {
    events.push(event);
    if (random() * pingEvery < 1) events.push({ type: 'ping' });
  };
  blocks.forEach((block, index) => {
    switch (block.type) {
      case 'text':
        events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const text of tokenPieces(block.text, 1, 12, random)) delta({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
        break;
      case 'thinking':
        events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } });
        for (const thinking of tokenPieces(block.thinking, 1, 12, random)) delta({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
        events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: `Sig${index}${'x'.repeat(300)}==` } });
        break;
      case 'tool_use':
        events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: `toolu_bench_${index}`, name: block.name, input: {} } });
        for (const partial_json of tokenPieces(JSON.stringify(block.input), 2, 40, random)) {
          delta({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
        }
        break;
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9000 } });
  events.push({ type: 'message_stop' });
  return events;
}

/** A named body: its SSE bytes and the network chunks they arrive in. */
export interface SseFixture {
  readonly label: string;
  readonly bytes: Uint8Array;
  readonly chunks: readonly Uint8Array[];
}

function fixture(label: string, events: readonly StreamEvent[], seed: number): SseFixture {
  const bytes = new TextEncoder().encode(encodeSSEStream(events));
  return { label, bytes, chunks: networkChunks(bytes, seed) };
}

/** ~1 MiB: groups of thinking, text, a Write with code and a small Read, as a coding turn streams. */
export function mixedFixture(): SseFixture {
  const random = seededRandom(42);
  const blocks: BlockSpec[] = [];
  for (let bytes = 0; bytes < 1024 * 1024; ) {
    const thinking = words(PROSE, 2000 + Math.floor(random() * 4000), random, 0.03);
    const text = words(PROSE, 1000 + Math.floor(random() * 3000), random, 0.05);
    const content = words(CODE, 3000 + Math.floor(random() * 12000), random, 0.12);
    blocks.push({ type: 'thinking', thinking }, { type: 'text', text });
    blocks.push({ type: 'tool_use', name: 'Write', input: { file_path: '/work/src/module.ts', content } });
    blocks.push({ type: 'tool_use', name: 'Read', input: { file_path: '/work/src/other.ts', limit: 400 } });
    // Each delta of ~7 characters costs ~90 bytes of SSE framing.
    bytes += ((thinking.length + text.length) / 6.5) * 95 + (content.length / 21) * 100;
  }
  return fixture('mixed', responseEvents(blocks, random), 1);
}

/** ~2 MiB: one long answer (thinking, then text) in token-sized deltas: many small events. */
export function bigFixture(): SseFixture {
  const random = seededRandom(11);
  const thinking = words(PROSE, 12_000, random, 0.03);
  const text = words(PROSE, 120_000, random, 0.04);
  return fixture('big', responseEvents([{ type: 'thinking', thinking }, { type: 'text', text }], random), 4);
}

/** One Write whose input is ~200 KiB of code, in deltas of 2-40 characters. */
export function tool200kFixture(): SseFixture {
  const random = seededRandom(7);
  const content = words(CODE, 200 * 1024 - 64, random, 0.12);
  return fixture('tool200k', responseEvents([{ type: 'tool_use', name: 'Write', input: { file_path: '/work/big.ts', content } }], random), 2);
}

/** One Write of ~`kib` KiB (the SDK-with-progress-listener case, quadratic on their side). */
export function toolFixture(kib: number, seed: number): SseFixture {
  const random = seededRandom(seed);
  const content = words(CODE, kib * 1024 - 64, random, 0.12);
  return fixture(`tool${kib}k`, responseEvents([{ type: 'tool_use', name: 'Write', input: { file_path: '/work/big.ts', content } }], random), seed);
}

/** Cuts bytes into chunks of random sizes, log-uniform between 64 B and 16 KiB, the same cut every run. */
export function networkChunks(bytes: Uint8Array, seed: number): Uint8Array[] {
  const random = seededRandom(seed);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = Math.round(64 * Math.pow(256, random()));
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}
