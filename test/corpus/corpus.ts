/**
 * The recorded Messages API streams in `../shared/real-streams/` (outside the repo on purpose: they
 * are other projects' recordings, read at test time and never copied in). Tests skip with a clear
 * message when the directory is absent, e.g. in a fresh clone outside this workspace.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const CORPUS_DIR = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'real-streams');
export const CORPUS_PRESENT = existsSync(join(CORPUS_DIR, 'corpus.json'));
export const CORPUS_ABSENT_REASON = `the recorded streams are not here (${CORPUS_DIR}); these tests need ../shared/real-streams beside the clone`;

export interface CorpusEntry {
  readonly file: string;
  readonly kind: 'recorded' | 'composite';
  readonly note: string;
  /** For composite streams: the recording served after the client's retry. */
  readonly retry_then?: string;
}

export function corpusEntries(): CorpusEntry[] {
  if (!CORPUS_PRESENT) return [];
  return JSON.parse(readFileSync(join(CORPUS_DIR, 'corpus.json'), 'utf8')) as CorpusEntry[];
}

export const streamEntries = (): CorpusEntry[] => corpusEntries().filter((e) => e.file.endsWith('.sse'));

export function readCorpusFile(file: string): Uint8Array {
  return new Uint8Array(readFileSync(join(CORPUS_DIR, file)));
}

// The same seeded generator (mulberry32) the benchmarks cut their bytes with: the same seed cuts
// the same offsets on every run.
export { seededRandom } from '../../bench/harness.js';

/** `bytes` cut at `count` random offsets (anywhere: inside lines, inside UTF-8 sequences). */
export function cutAtRandom(bytes: Uint8Array, count: number, random: () => number): Uint8Array[] {
  const points = new Set<number>();
  for (let i = 0; i < count && bytes.length > 1; i++) points.add(1 + Math.floor(random() * (bytes.length - 1)));
  return cutAt(bytes, [...points]);
}

/** `bytes` cut at the given offsets (taken modulo `length + 1`, repeats ignored), in order. */
export function cutAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let previous = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(previous, point));
    previous = point;
  }
  chunks.push(bytes.subarray(previous));
  return chunks;
}

/** The `data:` payloads of a recorded body, parsed (the recordings are well-formed SSE). */
export function recordedEvents(bytes: Uint8Array): Record<string, unknown>[] {
  const text = new TextDecoder().decode(bytes);
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
}

/** What a block must still carry after assembly, read straight off the recording. */
export interface BlockFacts {
  readonly type: string;
  readonly id?: unknown;
  readonly tool_use_id?: unknown;
  /** Concatenated text_delta text (text blocks), undefined when none streamed. */
  readonly text?: string;
  /** The streamed input, parsed (tool calls), undefined when none streamed. */
  readonly input?: unknown;
  readonly citations: number;
}

/**
 * The blocks of a recorded response in the order their starts arrive (message_start content
 * first). Deltas are attributed by position, not by index, so the recording whose starts repeat
 * the previous index (see MANIFEST.md) is read as the API meant it.
 */
export function blockFacts(events: readonly Record<string, unknown>[]): BlockFacts[] {
  const blocks: { type: string; id?: unknown; tool_use_id?: unknown; text?: string; json?: string; citations: number }[] = [];
  for (const event of events) {
    if (event['type'] === 'message_start') {
      const content = (event['message'] as { content: Record<string, unknown>[] }).content;
      for (const block of content) blocks.push({ type: block['type'] as string, id: block['id'], tool_use_id: block['tool_use_id'], citations: 0 });
    } else if (event['type'] === 'content_block_start') {
      const block = event['content_block'] as Record<string, unknown>;
      blocks.push({ type: block['type'] as string, id: block['id'], tool_use_id: block['tool_use_id'], citations: 0 });
    } else if (event['type'] === 'content_block_delta') {
      const block = blocks[event['index'] as number];
      const delta = event['delta'] as Record<string, unknown>;
      if (!block) continue;
      if (delta['type'] === 'text_delta') block.text = (block.text ?? '') + (delta['text'] as string);
      if (delta['type'] === 'input_json_delta') block.json = (block.json ?? '') + (delta['partial_json'] as string);
      if (delta['type'] === 'citations_delta') block.citations++;
    }
  }
  return blocks.map(({ json, ...facts }) => {
    const out: BlockFacts = { ...facts };
    if (json === undefined || json.trim() === '') return out;
    try {
      return { ...out, input: JSON.parse(json) as unknown };
    } catch {
      return out; // a cut input: the loop's own invalid-input path, checked elsewhere
    }
  });
}
