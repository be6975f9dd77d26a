/**
 * `client.stream(request).pipe(assembleBlocks())` runs from socket chunk to assembled output in
 * one stage (operators/internal/batchedOutputs.ts: the decoded attempt and its retries hand
 * batches straight to the assembler). That must be indistinguishable from the stages run apart
 * (an identity `map` in between): the same outputs in the same order, through a retry after
 * content (`stream_retry`, the assembler resets), one before content (`api_retry`), a
 * non-retryable error, and an early unsubscribe.
 */
import { asyncScheduler, lastValueFrom, map, type Observable, type SchedulerAction, type SchedulerLike, type Subscription, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import { BatchedOutputs } from '../../operators/internal/batchedOutputs.js';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { Script, ScriptedMessage } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { createMessagesClient } from '../../src/transport/createMessagesClient.js';
import { useOpenHandles } from './helpers.js';

const request: MessagesRequest = { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };
const answer: ScriptedMessage = {
  kind: 'message',
  blocks: [
    { type: 'thinking', thinking: 'Let me see… "quoted"\n', chunkSize: 4 },
    { type: 'text', text: 'héllo wörld € 🌍 日本', chunkSize: 3 },
    { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: '/tmp/ä "x"' }, chunkSize: 5 },
  ],
};

/** Backoff waits run at once, so the retry cases take no real time. */
const immediate: SchedulerLike = {
  now: () => Date.now(),
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, _delay?: number, state?: T): Subscription {
    return asyncScheduler.schedule(work, 0, state);
  },
};

const open = useOpenHandles();

interface Outcome {
  readonly outputs: AssemblyOutput[];
  readonly error?: string;
}

function collect(output$: Observable<AssemblyOutput>): Promise<Outcome> {
  return lastValueFrom(output$.pipe(toArray())).then(
    (outputs) => ({ outputs }),
    (error: unknown) => ({ outputs: [], error: String(error) }),
  );
}

/** Runs `script` fused and apart, each against its own server (its message ids count per server). */
async function bothWays(script: Script, shape: (o$: Observable<AssemblyOutput>) => Observable<AssemblyOutput> = (o$) => o$) {
  const outcome = async (stages: (client: ReturnType<typeof createMessagesClient>) => Observable<AssemblyOutput>) => {
    const server = (open.server = await startScriptedServer({ script }));
    const client = (open.client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-test', random: () => 0, scheduler: immediate }));
    try {
      return await collect(shape(stages(client)));
    } finally {
      await client.close();
      await server.close();
      open.client = open.server = undefined;
    }
  };
  const fused = await outcome((client) => {
    expect(client.stream(request)).toBeInstanceOf(BatchedOutputs);
    return client.stream(request).pipe(assembleBlocks());
  });
  const apart = await outcome((client) => client.stream(request).pipe(map((o) => o), assembleBlocks()));
  return { fused, apart };
}

describe('client.stream + assembleBlocks in one stage', () => {
  it('assembles the same outputs as the stages apart', async () => {
    const { fused, apart } = await bothWays([answer]);
    expect(fused.outputs.at(-1)).toMatchObject({ type: 'message' });
    expect(fused).toStrictEqual(apart);
  });

  it('resets at a stream_retry after content and assembles the second attempt, as apart', async () => {
    const { fused, apart } = await bothWays([{ ...answer, errorAfterEvents: { events: 6, type: 'overloaded_error', message: 'busy' } }, answer]);
    expect(fused.outputs.some((o) => o.type === 'stream_retry')).toBe(true);
    expect(fused.outputs.filter((o) => o.type === 'message')).toHaveLength(1);
    expect(fused).toStrictEqual(apart);
  });

  it('passes an api_retry before content on, as apart', async () => {
    const { fused, apart } = await bothWays([{ ...answer, errorAfterEvents: { events: 0, type: 'api_error', message: 'oops' } }, answer]);
    expect(fused.outputs[0]).toMatchObject({ type: 'api_retry', attempt: 1 });
    expect(fused).toStrictEqual(apart);
  });

  it('fails with the same error on a non-retryable one', async () => {
    const { fused, apart } = await bothWays([{ ...answer, errorAfterEvents: { events: 4, type: 'invalid_request_error', message: 'bad' } }]);
    expect(fused.error).toMatch(/bad/);
    expect(fused).toStrictEqual(apart);
  });

  it('stops at an early unsubscribe with the same outputs', async () => {
    const { fused, apart } = await bothWays([answer], (o$) => o$.pipe(take(5)));
    expect(fused.outputs).toHaveLength(5);
    expect(fused).toStrictEqual(apart);
  });
});
