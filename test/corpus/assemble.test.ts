/**
 * Every recorded stream of `../shared/real-streams` assembles with every block kept, whatever the
 * byte chunking: in process (decodeSSE + assembleBlocks, many random cuts) and through the public
 * client over a real 127.0.0.1 server (`createMessagesClient(...).stream(...).pipe(assembleBlocks())`).
 * The non-streaming bodies of the corpus show where each message field belongs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { from, lastValueFrom, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import { ApiError } from '../../src/errors.js';
import type { AssistantMessage } from '../../src/protocol/content.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { createMessagesClient } from '../../src/transport/createMessagesClient.js';
import { decodeSSE } from '../../operators/decodeSSE.js';
import {
  blockFacts,
  CORPUS_ABSENT_REASON,
  CORPUS_DIR,
  CORPUS_PRESENT,
  corpusEntries,
  cutAtRandom,
  readCorpusFile,
  recordedEvents,
  seededRandom,
  streamEntries,
} from './corpus.js';

interface Assembled {
  readonly outputs: AssemblyOutput[];
  readonly error?: unknown;
}

function assembleInProcess(chunks: readonly Uint8Array[]): Assembled {
  const outputs: AssemblyOutput[] = [];
  let error: unknown;
  from(chunks)
    .pipe(decodeSSE(), assembleBlocks())
    .subscribe({ next: (o) => outputs.push(o), error: (e: unknown) => (error = e) });
  return error === undefined ? { outputs } : { outputs, error };
}

const messageOf = (outputs: readonly AssemblyOutput[]): AssistantMessage | undefined => {
  const last = outputs.at(-1);
  return last?.type === 'message' ? last.message : undefined;
};

/** Checks the assembled message against facts read straight off the recording. */
function expectEveryBlockKept(message: AssistantMessage, bytes: Uint8Array): void {
  const facts = blockFacts(recordedEvents(bytes));
  expect(message.content.map((b) => b.type)).toEqual(facts.map((f) => f.type));
  message.content.forEach((raw, i) => {
    const block = raw as unknown as Record<string, unknown>;
    const fact = facts[i]!;
    if (fact.id !== undefined) expect(block['id']).toBe(fact.id);
    if (fact.tool_use_id !== undefined) expect(block['tool_use_id']).toBe(fact.tool_use_id);
    if (fact.text !== undefined) expect(block['text']).toBe(fact.text);
    if (fact.input !== undefined) expect(block['input']).toEqual(fact.input);
    if (fact.citations > 0) expect(block['citations']).toHaveLength(fact.citations);
  });
}

const results = { inProcess: 0, overHttp: 0, total: 0 };

if (!CORPUS_PRESENT) {
  it.skip(`recorded-stream corpus: ${CORPUS_ABSENT_REASON}`, () => undefined);
} else {
  const entries = streamEntries();
  results.total = entries.length;
  afterAll(() => {
    // The figure the note reports: streams assembled intact by each path.
    console.info(`recorded streams assembled intact: in process ${results.inProcess}/${results.total}, over HTTP ${results.overHttp}/${results.total}`);
  });

  describe.each(entries)('recorded stream $file', (entry) => {
    const bytes = readCorpusFile(entry.file);
    const whole = assembleInProcess([bytes]);

    it('assembles with every block kept, identically at random byte cuts', () => {
      if (entry.kind === 'composite') {
        // A recorded prefix plus the API's in-stream overload: a retryable ApiError, not garbage.
        expect(whole.error).toBeInstanceOf(ApiError);
        expect(whole.error).toMatchObject({ errorType: 'overloaded_error', retryable: true });
      } else {
        expect(whole.error).toBeUndefined();
        const message = messageOf(whole.outputs);
        expect(message, 'a complete message').toBeDefined();
        expectEveryBlockKept(message!, bytes);
      }
      const random = seededRandom(bytes.length);
      for (let round = 0; round < 12; round++) {
        const cut = assembleInProcess(cutAtRandom(bytes, 1 + Math.floor(random() * 40), random));
        if (JSON.stringify(cut.outputs) !== JSON.stringify(whole.outputs)) expect(cut.outputs).toEqual(whole.outputs);
        expect(String(cut.error)).toBe(String(whole.error));
      }
      results.inProcess++;
    });

    it('assembles the same through createMessagesClient over 127.0.0.1, cut at random byte offsets', async () => {
      const random = seededRandom(bytes.length + 1);
      const raw = (b: Uint8Array) => ({ kind: 'raw' as const, chunks: cutAtRandom(b, 1 + Math.floor(random() * 30), random) });
      const then = entry.retry_then === undefined ? undefined : readCorpusFile(entry.retry_then);
      const server = await startScriptedServer({ script: then === undefined ? [raw(bytes)] : [raw(bytes), raw(then)] });
      // A composite without a recording to serve after the retry: the overload must surface as is.
      const maxRetries = entry.kind === 'composite' && then === undefined ? 0 : 1;
      const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-test', retryBaseDelayMs: 1, retryMaxDelayMs: 2, maxRetries });
      try {
        const request = { model: 'claude-sonnet-4-6', max_tokens: 1024, stream: true, messages: [{ role: 'user' as const, content: 'replay' }] };
        if (maxRetries === 0) {
          await expect(lastValueFrom(client.stream(request).pipe(assembleBlocks(), toArray()))).rejects.toMatchObject({ errorType: 'overloaded_error' });
          results.overHttp++;
          return;
        }
        const outputs = await lastValueFrom(client.stream(request).pipe(assembleBlocks(), toArray()));
        const expected = messageOf(then === undefined ? whole.outputs : assembleInProcess([then]).outputs);
        expect(messageOf(outputs)).toEqual(expected);
        if (then !== undefined) expect(outputs.some((o) => o.type === 'stream_retry' || o.type === 'api_retry')).toBe(true);
        results.overHttp++;
      } finally {
        await client.close();
        await server.close();
      }
    });
  });

  describe('where the non-streaming body puts each field', () => {
    const bodies = corpusEntries().filter((e) => e.file.endsWith('.json') && e.file !== 'corpus.json');
    const withStream = bodies.filter((b) => entries.some((e) => e.file === b.file.replace(/\.json$/, '.sse')));

    it('the corpus has non-streaming bodies beside their streamed twins', () => {
      expect(bodies.length).toBeGreaterThan(0);
      expect(withStream.length).toBeGreaterThan(0);
    });

    it.each(withStream)('$file: the streamed message has the same top-level, usage and block fields', ({ file }) => {
      // Another response to the same request, so values differ: the shape must not.
      const body = JSON.parse(readFileSync(join(CORPUS_DIR, file), 'utf8')) as Record<string, unknown>;
      const message = messageOf(assembleInProcess([readCorpusFile(file.replace(/\.json$/, '.sse'))]).outputs);
      expect(message).toBeDefined();
      const assembled = message as unknown as Record<string, unknown>;
      for (const key of Object.keys(body)) expect(assembled, `top-level field ${key}`).toHaveProperty(key);
      const usage = assembled['usage'] as Record<string, unknown>;
      // The count of web searches depends on the answer; the field is the question here.
      for (const key of Object.keys(body['usage'] as object)) {
        if (key !== 'inference_geo') expect(usage, `usage.${key}`).toHaveProperty(key);
      }
      const keysByType = (blocks: readonly Record<string, unknown>[]) => {
        const map = new Map<string, Set<string>>();
        for (const block of blocks) {
          const keys = map.get(block['type'] as string) ?? new Set<string>();
          for (const key of Object.keys(block)) keys.add(key);
          map.set(block['type'] as string, keys);
        }
        return map;
      };
      const streamed = keysByType(assembled['content'] as Record<string, unknown>[]);
      for (const [type, keys] of keysByType(body['content'] as Record<string, unknown>[])) {
        const have = streamed.get(type);
        if (have === undefined) continue; // that response used other tools
        for (const key of keys) expect(have, `${type}.${key}`).toContain(key);
      }
    });
  });
}
