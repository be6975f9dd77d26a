/**
 * `loop.stream_ratio_to_parse_baseline` (issue 14 §4): what streaming one response through
 * `agentLoop` costs beside the floor.
 *
 * The same bytes (~1 MiB of SSE: thinking and text blocks in token-sized deltas, one response,
 * no tool calls) go through:
 * - `baseline`: eventsource-parser plus one JSON.parse per event (the floor any SSE client pays);
 * - `pipeline`: `decodeSSE` + `assembleBlocks` alone (the transport and assembly stages);
 * - `loop`: `agentLoop` with that response as its model, one iteration, every event consumed.
 *
 * One process, round-robin rounds after warm-up, a forced GC before every sample (the harness),
 * paired per-round ratios of wall and CPU time. Target (issue 20): loop ≤ 1.3 × baseline.
 */
import { createParser } from 'eventsource-parser';
import { from, type Subscription } from 'rxjs';
import { assembleBlocks } from '../operators/assembleBlocks.js';
import { decodeSSE } from '../operators/decodeSSE.js';
import { agentLoop } from '../src/loop/agentLoop.js';
import type { ScriptedBlock, ScriptedMessage } from '../src/testing/script.js';
import { encodeSSEStream, scriptedMessageToEvents } from '../src/testing/encodeScript.js';
import { spreadFigure, type BenchModule, type Figures } from './figures.js';
import { measureInterleaved, pairedRatio, seededRandom } from './harness.js';

const MODEL = 'claude-sonnet-4-5';

function prose(chars: number, random: () => number): string {
  const words = ['the', 'model', 'reads', 'a', 'file', 'and', 'then', 'edits', 'it,', 'carefully.', 'Next', 'step:', 'tests', 'pass', '—', 'ok'];
  const parts: string[] = [];
  for (let length = 0; length < chars; ) {
    const word = words[Math.floor(random() * words.length)] as string;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ').slice(0, chars);
}

/** ~`targetBytes` of SSE with thinking and text blocks only (no tool call: one iteration). */
function textOnlyMessage(targetBytes: number): ScriptedMessage {
  const random = seededRandom(14);
  const blocks: ScriptedBlock[] = [];
  for (let bytes = 0; bytes < targetBytes; ) {
    const group: ScriptedBlock[] = [
      { type: 'thinking', thinking: prose(2000 + Math.floor(random() * 4000), random), chunkSize: 10 + Math.floor(random() * 20) },
      { type: 'text', text: prose(1000 + Math.floor(random() * 3000), random), chunkSize: 4 + Math.floor(random() * 16) },
    ];
    bytes += sseOf({ kind: 'message', blocks: group }).length;
    blocks.push(...group);
  }
  return { kind: 'message', blocks };
}

function sseOf(message: ScriptedMessage): string {
  return encodeSSEStream(scriptedMessageToEvents(message).map((e) => e.event));
}

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

/** The floor: SSE parsing, one JSON.parse per event, every event looked at. */
export function baseline(chunks: readonly Uint8Array[]): number {
  const decoder = new TextDecoder();
  let events = 0;
  const parser = createParser({
    onEvent(event) {
      const value = JSON.parse(event.data) as { type: string };
      if (value.type !== '') events++;
    },
  });
  for (const chunk of chunks) parser.feed(decoder.decode(chunk, { stream: true }));
  parser.feed(decoder.decode());
  return events;
}

export function pipeline(chunks: readonly Uint8Array[]): number {
  let events = 0;
  from(chunks)
    .pipe(decodeSSE(), assembleBlocks())
    .subscribe(() => events++);
  return events;
}

/** The loop over the same bytes, synchronous like the others (the model is `from(chunks)`). */
export function loop(chunks: readonly Uint8Array[]): number {
  let events = 0;
  let reason: string | undefined;
  const subscription: Subscription = agentLoop({
    model: MODEL,
    prompt: 'go',
    deps: { callModel: () => from(chunks).pipe(decodeSSE()) },
  }).subscribe((event) => {
    events++;
    if (event.type === 'terminal') reason = event.reason;
  });
  subscription.unsubscribe();
  if (reason !== 'completed') throw new Error(`the loop ended ${reason ?? 'without a terminal'}`);
  return events;
}

/** The bench's bytes: ~1 MiB of one text-only response, cut into random network chunks. */
export function streamChunks(): Uint8Array[] {
  return networkChunks(new TextEncoder().encode(sseOf(textOnlyMessage(1024 * 1024))), 5);
}

async function streamCase(): Promise<Figures> {
  const chunks = streamChunks();
  // The loop must pass on every event the pipeline assembles before its time means anything.
  const assembled = pipeline(chunks);
  const streamed = loop(chunks);
  if (streamed < assembled) throw new Error(`the loop emitted ${streamed} events for ${assembled} assembled`);
  const rounds = 11;
  const m = await measureInterleaved(
    { baseline: () => baseline(chunks), pipeline: () => pipeline(chunks), loop: () => loop(chunks) },
    { warmup: 5, rounds },
  );
  // The same without the forced GC: informative only (no target), see bench/README.md.
  const steady = await measureInterleaved(
    { baseline: () => baseline(chunks), loop: () => loop(chunks) },
    { warmup: 5, rounds, gcBeforeEachSample: false },
  );
  return {
    'loop.stream_ratio_to_parse_baseline': spreadFigure(pairedRatio(m.loop, m.baseline, 'wall'), rounds, 'ratio', '<= 1.3'),
    'loop.stream_cpu_ratio_to_parse_baseline': spreadFigure(pairedRatio(m.loop, m.baseline, 'cpu'), rounds, 'ratio', '<= 1.3'),
    'loop.stream_pipeline_ratio_to_parse_baseline': spreadFigure(pairedRatio(m.pipeline, m.baseline, 'wall'), rounds, 'ratio'),
    'loop.stream_pipeline_cpu_ratio_to_parse_baseline': spreadFigure(pairedRatio(m.pipeline, m.baseline, 'cpu'), rounds, 'ratio'),
    'loop.stream_cpu_ratio_steady': spreadFigure(pairedRatio(steady.loop, steady.baseline, 'cpu'), rounds, 'ratio'),
    'loop.stream_ms': spreadFigure(m.loop.wall, rounds, 'ms'),
    'loop.stream_parse_baseline_ms': spreadFigure(m.baseline.wall, rounds, 'ms'),
    'loop.stream_events': { value: streamed, unit: 'count' },
  };
}

export const loopStreamBench: BenchModule = {
  name: 'loopStream',
  run: streamCase,
};
