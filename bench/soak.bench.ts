/**
 * Soak benchmark (issue 9 §4): one session of 2,000 iterations (a tool call each, ~2,000
 * characters of result) under `createContextGovernor` with a 30k-token window, so automatic
 * compaction runs again and again (about every 20 iterations). The model is an in-process
 * client (the scripted encoder's events, no HTTP), so the figures describe the loop and the
 * governor, not a server keeping every request.
 *
 * - `soak.heap_growth_ratio`: heapUsed after a full GC at iteration 2,000 divided by the same at
 *   iteration 200 (target <= 1.2: flat after warm-up).
 * - `soak.iteration_time_ratio`: mean time per iteration over iterations 1,800-2,000 divided by
 *   the mean over 300-500 (flat means no per-iteration cost grows with the run).
 * - `soak.compactions`: automatic compactions during the run (must be many).
 * - `soak.iteration_us`: mean time per iteration over the whole run.
 */
import { getHeapStatistics } from 'node:v8';
import { defer, from, lastValueFrom, reduce, tap, type Observable } from 'rxjs';
import { z } from 'zod';
import { COMPACT_SYSTEM_PROMPT } from '../src/context/compactPrompt.js';
import { createContextGovernor } from '../src/context/createContextGovernor.js';
import { agentLoop } from '../src/loop/agentLoop.js';
import type { LoopEvent } from '../src/loop/types.js';
import type { MessagesRequest } from '../src/protocol/request.js';
import { estimateInputTokens, scriptedMessageToEvents } from '../src/testing/encodeScript.js';
import type { ScriptedMessage } from '../src/testing/script.js';
import { defineTool } from '../src/tools/defineTool.js';
import type { MessagesClient, TransportOutput } from '../src/transport/types.js';
import type { BenchModule, Figures } from './figures.js';
import { collectGarbage } from './gc.js';

const ITERATIONS = 2_000;
const EARLY_MARK = 200;

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up',
  inputSchema: z.strictObject({ key: z.string() }),
  isConcurrencySafe: true,
  call: ({ key }: { key: string }) => `value of ${key}: ${'v'.repeat(2_000)}`,
});

/** An in-process Messages API: tool calls until `iterations` main calls, summaries for compaction. */
function inProcessClient(iterations: number): { client: MessagesClient; compactions: () => number } {
  let main = 0;
  let compactions = 0;
  const client: MessagesClient = {
    stream: (request: MessagesRequest): Observable<TransportOutput> =>
      defer(() => {
        let reply: ScriptedMessage;
        if (request.system === COMPACT_SYSTEM_PROMPT) {
          compactions++;
          reply = { kind: 'message', blocks: [{ type: 'text', text: `Summary ${compactions}: keys k0..k${main} were looked up.` }] };
        } else {
          const n = main++;
          reply =
            n < iterations - 1
              ? { kind: 'message', blocks: [{ type: 'text', text: `Looking up k${n}.` }, { type: 'tool_use', name: 'lookup', input: { key: `k${n}` } }] }
              : { kind: 'message', blocks: [{ type: 'text', text: 'All keys are looked up.' }] };
        }
        // Usage like the real API's: input tokens of this request (the governor reads them).
        const inputTokens = estimateInputTokens(JSON.stringify(request));
        return from(scriptedMessageToEvents(reply, { responseIndex: main + compactions, model: request.model, inputTokens }).map((e) => e.event));
      }),
  };
  return { client, compactions: () => compactions };
}

const heapUsed = (): number => getHeapStatistics().used_heap_size;

export async function runSoakBench(iterations = ITERATIONS): Promise<Figures> {
  const { client, compactions } = inProcessClient(iterations);
  const governor = createContextGovernor({
    client,
    keepRecentTokens: 1_000,
    modelLimits: { 'claude-sonnet-4-5': { contextWindow: 30_000, maxOutputTokens: 4_000 } },
  });
  const starts: number[] = [];
  let heapEarly = 0;
  let heapLate = 0;
  const started = performance.now();
  const summary = await lastValueFrom(
    agentLoop({ model: 'claude-sonnet-4-5', prompt: 'look every key up', tools: [lookup], client, contextGovernor: governor, maxOutputTokens: 4_000 }).pipe(
      tap((e: LoopEvent) => {
        if (e.type !== 'iteration_start') return;
        if (starts.length === EARLY_MARK) {
          collectGarbage();
          heapEarly = heapUsed();
        }
        starts.push(performance.now());
      }),
      reduce((acc: { reason: string | undefined; boundaries: number }, e: LoopEvent) => ({
        reason: e.type === 'terminal' ? e.reason : acc.reason,
        boundaries: acc.boundaries + (e.type === 'compact_boundary' ? 1 : 0),
      }), { reason: undefined, boundaries: 0 }),
    ),
  );
  const wall = performance.now() - started;
  collectGarbage();
  heapLate = heapUsed();
  if (summary.reason !== 'completed' || starts.length !== iterations) {
    throw new Error(`soak run ended with ${summary.reason} after ${starts.length} of ${iterations} iterations`);
  }
  const meanGap = (from: number, to: number): number => ((starts[to - 1] ?? 0) - (starts[from] ?? 0)) / (to - 1 - from);
  return {
    'soak.heap_growth_ratio': { value: heapLate / heapEarly, unit: 'x', target: '<= 1.2' },
    'soak.iteration_time_ratio': { value: meanGap(iterations - 200, iterations) / meanGap(300, 500), unit: 'x', target: '<= 1.2' },
    'soak.compactions': { value: compactions(), unit: 'compactions' },
    'soak.iteration_us': { value: (wall / iterations) * 1000, unit: 'us' },
  };
}

export const soakBench: BenchModule = { name: 'soak', run: () => runSoakBench() };
