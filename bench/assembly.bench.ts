/**
 * Assembly benchmarks (issue 2 §7): the client-side path from SSE bytes to the final message,
 * against (a) a floor that only parses (eventsource-parser + one JSON.parse per event + string
 * concatenation) and (b) @anthropic-ai/sdk's MessageStream, all on the same bytes in one process.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createParser } from 'eventsource-parser';
import { from, last, lastValueFrom } from 'rxjs';
import type { ReadableStreamLike } from 'rxjs';
import { assembleBlocks } from '../operators/assembleBlocks.js';
import type { AssistantMessage } from '../src/protocol/content.js';
import type { ScriptedBlock, ScriptedMessage } from '../src/testing/script.js';
import { encodeSSEStream, scriptedMessageToEvents } from '../src/testing/encodeScript.js';
import { decodeSSE } from '../operators/decodeSSE.js';
import type { BenchModule, Figures } from './figures.js';
import { measureInterleaved, seededRandom } from './harness.js';

// ---------------------------------------------------------------------------------------------
// Inputs

/** Source-code-like text: quotes, backslashes, newlines and some non-ASCII, as tool inputs carry. */
function codeLikeText(chars: number, random: () => number): string {
  const words = ['const', 'value', 'return', '"quoted"', 'path\\to', 'résumé', '=>', '{', '}', 'await', 'map((x) =>', '// why:', '日本'];
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = words[Math.floor(random() * words.length)] as string;
    const sep = random() < 0.12 ? '\n  ' : ' ';
    parts.push(word, sep);
    length += word.length + sep.length;
  }
  return parts.join('').slice(0, chars);
}

function proseText(chars: number, random: () => number): string {
  const words = ['the', 'model', 'reads', 'a', 'file', 'and', 'then', 'edits', 'it,', 'carefully.', 'Next', 'step:', 'tests', 'pass', '—', 'ok'];
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = words[Math.floor(random() * words.length)] as string;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ').slice(0, chars);
}

/** A response of about `targetBytes` of SSE: thinking, text and tool blocks, token-sized deltas. */
function mixedMessage(targetBytes: number): ScriptedMessage {
  const random = seededRandom(42);
  const blocks: ScriptedBlock[] = [];
  let sseBytes = 0;
  while (sseBytes < targetBytes) {
    const group: ScriptedBlock[] = [];
    const thinking = proseText(2000 + Math.floor(random() * 4000), random);
    group.push({ type: 'thinking', thinking, chunkSize: 10 + Math.floor(random() * 20) });
    const text = proseText(1000 + Math.floor(random() * 3000), random);
    group.push({ type: 'text', text, chunkSize: 4 + Math.floor(random() * 16) });
    const content = codeLikeText(3000 + Math.floor(random() * 12000), random);
    group.push({ type: 'tool_use', name: 'Write', input: { file_path: '/work/src/module.ts', content }, chunkSize: 8 + Math.floor(random() * 40) });
    group.push({ type: 'tool_use', name: 'Read', input: { file_path: '/work/src/other.ts', limit: 400 }, chunkSize: 12 });
    sseBytes += sseText({ kind: 'message', blocks: group }).length;
    blocks.push(...group);
  }
  return { kind: 'message', blocks };
}

/** One tool_use with ~`kib` KiB of input in 15-character input_json_deltas. */
function toolMessage(kib: number): ScriptedMessage {
  const random = seededRandom(7);
  const content = codeLikeText(kib * 1024 - 64, random);
  return { kind: 'message', blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: '/work/big.ts', content }, chunkSize: 15 }] };
}

function sseText(message: ScriptedMessage): string {
  return encodeSSEStream(scriptedMessageToEvents(message).map((e) => e.event));
}

/** Cuts bytes into uneven network-sized chunks (1-16 KiB), the same cut every run. */
function networkChunks(bytes: Uint8Array, seed: number): Uint8Array[] {
  const random = seededRandom(seed);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = 1024 + Math.floor(random() * 15 * 1024);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

// ---------------------------------------------------------------------------------------------
// The three paths

/** Ours, synchronous from an array of chunks (like the baseline). */
function oursSync(chunks: readonly Uint8Array[]): AssistantMessage {
  let message: AssistantMessage | undefined;
  from(chunks)
    .pipe(decodeSSE(), assembleBlocks(), last((o) => o.type === 'message'))
    .subscribe((o) => {
      if (o.type === 'message') message = o.message;
    });
  if (message === undefined) throw new Error('no message assembled');
  return message;
}

/** Ours, reading a web ReadableStream asynchronously, as the SDK must. */
async function oursStream(chunks: readonly Uint8Array[]): Promise<AssistantMessage> {
  const output = await lastValueFrom(from(readableOf(chunks) as ReadableStreamLike<Uint8Array>).pipe(decodeSSE(), assembleBlocks(), last((o) => o.type === 'message')));
  if (output.type !== 'message') throw new Error('no message assembled');
  return output.message;
}

/** The floor: SSE parsing, one JSON.parse per event, and string concatenation. */
function parseBaseline(chunks: readonly Uint8Array[]): string[] {
  const decoder = new TextDecoder();
  const texts: string[] = [];
  const parser = createParser({
    onEvent(event) {
      const value = JSON.parse(event.data) as { type: string; index?: number; delta?: Record<string, string> };
      if (value.type === 'content_block_delta' && value.index !== undefined && value.delta) {
        const d = value.delta;
        texts[value.index] = (texts[value.index] ?? '') + (d.text ?? d.thinking ?? d.partial_json ?? d.signature ?? '');
      }
    },
  });
  for (const chunk of chunks) parser.feed(decoder.decode(chunk, { stream: true }));
  parser.feed(decoder.decode());
  return texts;
}

function readableOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

/**
 * The SDK's streaming path: its SSE decoder and MessageStream, fed through a custom fetch.
 * With `inputListener`, an `inputJson` listener is attached, as a UI showing tool-call progress
 * would: the SDK then parses the partial input on every delta.
 */
async function sdk(chunks: readonly Uint8Array[], inputListener = false): Promise<unknown> {
  const client = new Anthropic({
    apiKey: 'bench-not-a-key',
    maxRetries: 0,
    fetch: async () => new Response(readableOf(chunks), { status: 200, headers: { 'content-type': 'text/event-stream' } }),
  });
  const stream = client.messages.stream({ model: 'claude-scripted', max_tokens: 64_000, messages: [{ role: 'user', content: 'go' }] });
  if (inputListener) stream.on('inputJson', () => {});
  return stream.finalMessage();
}

// ---------------------------------------------------------------------------------------------

async function benchCase(label: string, message: ScriptedMessage, seed: number, repetitions: number): Promise<Figures> {
  const bytes = new TextEncoder().encode(sseText(message));
  const chunks = networkChunks(bytes, seed);

  // The paths must agree before their times mean anything.
  const ours = oursSync(chunks);
  const theirs = (await sdk(chunks)) as { content: unknown };
  if (JSON.stringify(ours.content) !== JSON.stringify(theirs.content)) {
    throw new Error(`${label}: our message differs from the SDK's`);
  }
  if (JSON.stringify((await oursStream(chunks)).content) !== JSON.stringify(ours.content)) {
    throw new Error(`${label}: the async path differs from the sync path`);
  }

  const m = await measureInterleaved(
    {
      baseline: () => parseBaseline(chunks),
      ours: () => oursSync(chunks),
      oursStream: () => oursStream(chunks),
      sdk: () => sdk(chunks),
    },
    { warmup: 5, repetitions },
  );
  const prefix = `assembly.${label}`;
  return {
    [`${prefix}.time_ratio_to_parse_baseline`]: { value: m.ours.medianMs / m.baseline.medianMs, unit: 'ratio', target: '<= 1.5' },
    [`${prefix}.speedup_vs_anthropic_sdk`]: { value: m.sdk.medianMs / m.oursStream.medianMs, unit: 'x', target: '>= 3' },
    [`${prefix}.cpu_time_ratio_to_parse_baseline`]: { value: m.ours.medianCpuMs / m.baseline.medianCpuMs, unit: 'ratio' },
    [`${prefix}.cpu_speedup_vs_anthropic_sdk`]: { value: m.sdk.medianCpuMs / m.oursStream.medianCpuMs, unit: 'x' },
    [`${prefix}.ours_ms`]: { value: m.ours.medianMs, unit: 'ms' },
    [`${prefix}.ours_stream_ms`]: { value: m.oursStream.medianMs, unit: 'ms' },
    [`${prefix}.parse_baseline_ms`]: { value: m.baseline.medianMs, unit: 'ms' },
    [`${prefix}.anthropic_sdk_ms`]: { value: m.sdk.medianMs, unit: 'ms' },
    [`${prefix}.input_bytes`]: { value: bytes.length, unit: 'bytes' },
    [`${prefix}.chunks`]: { value: chunks.length, unit: 'count' },
  };
}

/**
 * The SDK with an `inputJson` listener re-parses the whole partial input on every delta, which is
 * quadratic: 200 KiB takes seconds per run, so this case uses 64 KiB and few repetitions.
 */
async function progressCase(): Promise<Figures> {
  const bytes = new TextEncoder().encode(sseText(toolMessage(64)));
  const chunks = networkChunks(bytes, 3);
  const m = await measureInterleaved(
    { oursStream: () => oursStream(chunks), sdk: () => sdk(chunks, true) },
    { warmup: 1, repetitions: 3 },
  );
  return {
    'assembly.tool64k_progress.speedup_vs_anthropic_sdk_input_listener': { value: m.sdk.medianMs / m.oursStream.medianMs, unit: 'x' },
    'assembly.tool64k_progress.anthropic_sdk_input_listener_ms': { value: m.sdk.medianMs, unit: 'ms' },
  };
}

export const assemblyBench: BenchModule = {
  name: 'assembly',
  async run() {
    return {
      ...(await benchCase('mixed', mixedMessage(1024 * 1024), 1, 21)),
      ...(await benchCase('tool200k', toolMessage(200), 2, 21)),
      ...(await progressCase()),
    };
  },
};
