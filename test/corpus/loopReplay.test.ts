/**
 * Every recorded response of `../shared/real-streams`, played by a real 127.0.0.1 server to a
 * real `agentLoop`: the next request must carry the assistant message with every block as it
 * arrived (server tool calls and results, compaction, signed and redacted thinking, tool calls
 * sent in message_start), and must be a valid request. A Stop hook that asks once for more makes
 * every response, an `end_turn` too, lead to that next request.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { from } from 'rxjs';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import type { AssistantContentBlock, MessageParam } from '../../src/protocol/content.js';
import { decodeSSE } from '../../operators/decodeSSE.js';
import { runOverHttp, withoutCacheMarks } from '../loop/helpers.js';
import { CORPUS_ABSENT_REASON, CORPUS_PRESENT, cutAtRandom, readCorpusFile, seededRandom, streamEntries } from './corpus.js';

function assembledContent(bytes: Uint8Array): AssistantContentBlock[] {
  const outputs: AssemblyOutput[] = [];
  from([bytes]).pipe(decodeSSE(), assembleBlocks()).subscribe((o) => outputs.push(o));
  const last = outputs.at(-1);
  if (last?.type !== 'message') throw new Error('the recording did not assemble');
  return last.message.content;
}

/** What the API accepts back: empty text blocks and a trailing thinking block are refused; nothing else changes. */
function replayed(content: readonly AssistantContentBlock[]): AssistantContentBlock[] {
  const kept = content.filter((b) => !(b.type === 'text' && b.text === ''));
  while (kept.length > 0 && (kept.at(-1)!.type === 'thinking' || kept.at(-1)!.type === 'redacted_thinking')) kept.pop();
  return kept;
}

if (!CORPUS_PRESENT) {
  it.skip(`recorded-stream corpus (loop replay): ${CORPUS_ABSENT_REASON}`, () => undefined);
} else {
  const recorded = streamEntries().filter((e) => e.kind === 'recorded');
  let intact = 0;

  describe.each(recorded)('agentLoop replaying $file', ({ file }) => {
    it('sends every block back in a valid next request', async () => {
      const bytes = readCorpusFile(file);
      const content = assembledContent(bytes);
      const random = seededRandom(bytes.length + 2);
      let asked = false;
      const run = await runOverHttp(
        [
          { kind: 'raw', chunks: cutAtRandom(bytes, 8, random) },
          { kind: 'message', blocks: [{ type: 'text', text: 'done' }] },
          { kind: 'message', blocks: [{ type: 'text', text: 'done again' }] },
        ],
        {
          model: 'claude-sonnet-4-6',
          // Thinking on, so signed thinking stays in the history (without it the loop drops it).
          thinking: { type: 'enabled', budget_tokens: 1024 },
          maxOutputTokens: 4096,
          hooks: {
            stop: () => {
              if (asked) return {};
              asked = true;
              return { block: 'Please go on.' };
            },
          },
        },
      );
      expect(run.requests.length, 'a next request').toBeGreaterThanOrEqual(2);
      for (const request of run.requests) expect(request.validationErrors).toEqual([]);
      const next = run.requests[1]!.body!.messages as MessageParam[];
      expect(next[1]?.role).toBe('assistant');
      // Every block as it arrived; the one cache breakpoint the loop adds per request aside.
      expect(withoutCacheMarks(next[1]!.content)).toEqual(replayed(content));
      intact++;
    });
  });

  // Each replay asserts its own stream; the tally is only the figure for the notes. (It used to be
  // a test asserting the count, which passed only when it happened to run last: a shuffled order
  // ran it first and counted 0.)
  afterAll(() => console.info(`recorded streams replayed intact by agentLoop: ${intact}/${recorded.length}`));

  it('the corpus holds the recorded streams to replay', () => {
    expect(recorded.length).toBeGreaterThanOrEqual(100);
  });
}
