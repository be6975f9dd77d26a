/**
 * Load benchmark (issue 9 §3): 1,000 sessions at once in this process, against the scripted model
 * server on loopback (same process, so its sockets and buffers are counted too), one shared
 * client. Each session does 5 tool turns (a small streamed reply with one tool call, the tool
 * waits 2 ms) and a final answer: 6 requests per session, 6,000 in all.
 *
 * - `load.sessions_completed`: sessions that ended with `completed` (target 1000).
 * - `load.event_loop_lag_p99_ms`: p99 of `monitorEventLoopDelay` during the run (target <= 50).
 * - `load.heap_mb_per_session`: (peak heapUsed - heapUsed before) / sessions, sampled every 20 ms
 *   (target <= 0.5). Includes the server's side of every connection.
 * - `load.throughput_iterations_per_s`: model iterations (iteration_start events) per second of
 *   wall time.
 * - `load.invalid_requests`: requests the server's validator refused (must be 0).
 * - `load.start_burst_ms`: the one synchronous block in which all sessions subscribe and send
 *   their first request (it is one sample of the lag histogram, so it does not dominate p99).
 *
 * On a shared machine (2 cores, other processes) the lag figures include time the process was
 * not scheduled and GC pauses: most of the measured p99 is young-generation collections.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { lastValueFrom, reduce } from 'rxjs';
import { z } from 'zod';
import { agentLoop } from '../src/loop/agentLoop.js';
import type { LoopEvent } from '../src/loop/types.js';
import type { MessagesRequest } from '../src/protocol/request.js';
import type { ScriptedResponse } from '../src/testing/script.js';
import { startScriptedServer } from '../src/testing/scriptedServer.js';
import { defineTool } from '../src/tools/defineTool.js';
import { createMessagesClient } from '../src/transport/createMessagesClient.js';
import type { BenchModule, Figures } from './figures.js';
import { collectGarbage } from './gc.js';

const SESSIONS = 1_000;
const TOOL_TURNS = 5;

const work = defineTool({
  name: 'work',
  description: 'Does a little asynchronous work',
  inputSchema: z.strictObject({ step: z.number() }),
  isConcurrencySafe: true,
  call: ({ step }: { step: number }) => new Promise<string>((resolve) => setTimeout(() => resolve(`step ${step} done`), 2)),
});

/** The turn a request is at: the assistant messages already in its history. */
function replyTo(request: MessagesRequest): ScriptedResponse {
  const turn = request.messages.filter((m) => m.role === 'assistant').length;
  if (turn < TOOL_TURNS) {
    return {
      kind: 'message',
      blocks: [
        { type: 'text', text: `Working on step ${turn}.`, chunkSize: 8, deltaDelayMs: 1 },
        { type: 'tool_use', name: 'work', input: { step: turn } },
      ],
    };
  }
  return { kind: 'message', blocks: [{ type: 'text', text: 'All steps are done.', chunkSize: 8, deltaDelayMs: 1 }] };
}

interface SessionSummary {
  readonly reason: string | undefined;
  readonly iterations: number;
}

/** heapUsed without `process.memoryUsage()`, which also measures RSS and costs far more. */
const heapUsed = (): number => getHeapStatistics().used_heap_size;

function runSessions(sessions: number, client: ReturnType<typeof createMessagesClient>): Promise<SessionSummary[]> {
  return Promise.all(
    Array.from({ length: sessions }, (_, i) =>
      lastValueFrom(
        agentLoop({ model: 'claude-sonnet-4-5', prompt: `session ${i}: do the five steps`, tools: [work], client, maxOutputTokens: 1024 }).pipe(
          reduce(
            (acc: SessionSummary, e: LoopEvent): SessionSummary => ({
              reason: e.type === 'terminal' ? e.reason : acc.reason,
              iterations: acc.iterations + (e.type === 'iteration_start' ? 1 : 0),
            }),
            { reason: undefined, iterations: 0 },
          ),
        ),
      ),
    ),
  );
}

export async function runLoadBench(sessions = SESSIONS): Promise<Figures> {
  const server = await startScriptedServer({ script: (request) => replyTo(request) });
  const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'bench-key', maxRetries: 2, retryBaseDelayMs: 10 });
  try {
    // Warm-up (not measured): compiles the hot paths so the figures describe the steady state.
    await runSessions(50, client);
    server.requests.length = 0;
    collectGarbage();
    const heapBefore = heapUsed();
    let heapPeak = heapBefore;
    const sampler = setInterval(() => {
      heapPeak = Math.max(heapPeak, heapUsed());
    }, 20);
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const started = performance.now();
    const all = runSessions(sessions, client);
    // Every session subscribes (and sends its first request) synchronously, in this one block.
    const startBurstMs = performance.now() - started;
    const results = await all;

    const wallS = (performance.now() - started) / 1000;
    lag.disable();
    clearInterval(sampler);
    heapPeak = Math.max(heapPeak, heapUsed());

    const completed = results.filter((r) => r.reason === 'completed').length;
    const iterations = results.reduce((sum, r) => sum + r.iterations, 0);
    const invalid = server.requests.filter((r) => r.validationErrors.length > 0).length;
    return {
      'load.sessions_completed': { value: completed, unit: 'sessions', target: `${sessions}` },
      'load.event_loop_lag_p99_ms': { value: lag.percentile(99) / 1e6, unit: 'ms', target: '<= 50' },
      'load.heap_mb_per_session': { value: (heapPeak - heapBefore) / 1024 / 1024 / sessions, unit: 'MB', target: '<= 0.5' },
      'load.throughput_iterations_per_s': { value: iterations / wallS, unit: 'iterations/s' },
      'load.invalid_requests': { value: invalid, unit: 'requests', target: '0' },
      'load.wall_s': { value: wallS, unit: 's' },
      'load.start_burst_ms': { value: startBurstMs, unit: 'ms' },
    };
  } finally {
    await client.close();
    await server.close();
  }
}

export const loadBench: BenchModule = { name: 'load', run: () => runLoadBench() };
