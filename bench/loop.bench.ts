/**
 * Loop benchmarks (issue 4 §9).
 *
 * - `loop.iteration_overhead_ratio_1000_vs_10`: a 1,000-iteration run, one no-op tool per turn,
 *   against an in-process model (stream events prepared before the run, so the model costs
 *   nothing). An iteration's cost is the time between consecutive `iteration_start` events (no
 *   request body is serialized in process). Mean over iterations 900-1000 divided by the mean
 *   over 10-110; median of 9 runs, a full GC before each. Flat means no per-iteration cost grows
 *   with the history. The windows are 100 iterations (not 10) because an iteration costs only
 *   0.04-0.4 ms: one scavenge (~0.3 ms) falling in a 10-iteration window decided the figure
 *   (1.5 and 6.49 on the same tree); over 100 iterations each window carries its share of them.
 * - `latency.turn_ratio_to_ideal`: the scripted server streams one response over 600 ms whose 3
 *   safe tool blocks close at 100, 300 and 500 ms; each tool takes 300 ms; then a final answer.
 *   Ideal: tools start at their block stop and overlap fully, so the last result is ready at
 *   800 ms, plus one immediate round trip for the final answer (measured in the same process).
 * - `latency.speedup_vs_sequential`: the same exchange done the plain way (wait for the whole
 *   message, run the tools one after another, then ask again) divided by our wall time.
 */
import { defer, from, lastValueFrom, last, tap, toArray } from 'rxjs';
import { z } from 'zod';
import { assembleBlocks } from '../operators/assembleBlocks.js';
import { agentLoop } from '../src/loop/agentLoop.js';
import type { CallModel } from '../src/loop/options.js';
import type { StreamEvent } from '../src/protocol/events.js';
import type { MessageParam } from '../src/protocol/content.js';
import { scriptedMessageToEvents } from '../src/testing/encodeScript.js';
import type { Script, ScriptedMessage } from '../src/testing/script.js';
import { startScriptedServer } from '../src/testing/scriptedServer.js';
import { defineTool } from '../src/tools/defineTool.js';
import { createMessagesClient } from '../src/transport/createMessagesClient.js';
import { spreadFigure, type BenchModule, type Figures } from './figures.js';
import { collectGarbage } from './gc.js';
import { MIN_ROUNDS, median, spreadOf, type Spread } from './harness.js';

const MODEL = 'claude-sonnet-4-5';

const noop = defineTool({
  name: 'noop',
  description: 'does nothing',
  inputSchema: z.strictObject({ n: z.number() }),
  isConcurrencySafe: true,
  call: ({ n }) => n,
});

async function iterationCosts(iterations: number): Promise<number[]> {
  const streams: StreamEvent[][] = [];
  for (let i = 0; i < iterations; i++) {
    const msg: ScriptedMessage =
      i < iterations - 1
        ? { kind: 'message', blocks: [{ type: 'tool_use', name: 'noop', input: { n: i } }] }
        : { kind: 'message', blocks: [{ type: 'text', text: 'done' }] };
    streams.push(scriptedMessageToEvents(msg, { responseIndex: i, model: MODEL }).map((e) => e.event));
  }
  let call = 0;
  const callModel: CallModel = () => defer(() => from(streams[call++]!));
  const starts: number[] = [];
  await lastValueFrom(
    agentLoop({ model: MODEL, prompt: 'go', tools: [noop], deps: { callModel } }).pipe(
      tap((e) => {
        if (e.type === 'iteration_start') starts.push(performance.now());
      }),
      last(),
    ),
  );
  const costs: number[] = [];
  for (let i = 1; i < starts.length; i++) costs.push(starts[i]! - starts[i - 1]!);
  return costs;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function overheadRatio(): Promise<Spread> {
  await iterationCosts(200); // warm-up
  const ratios: number[] = [];
  for (let run = 0; run < MIN_ROUNDS; run++) {
    collectGarbage();
    // costs[i] is iteration i+1 (from its iteration_start to the next one).
    const costs = await iterationCosts(1000);
    ratios.push(mean(costs.slice(899, 999)) / mean(costs.slice(9, 109)));
  }
  return spreadOf(ratios);
}

// ---- latency ---------------------------------------------------------------------------------

const TOOL_MS = 300;
const sleepTool = defineTool({
  name: 'sleep',
  description: 'waits 300 ms',
  inputSchema: z.strictObject({ n: z.number() }),
  isConcurrencySafe: true,
  call: ({ n }, ctx) =>
    new Promise<number>((resolve) => {
      const timer = setTimeout(() => resolve(n), TOOL_MS);
      ctx.signal.addEventListener('abort', () => clearTimeout(timer));
    }),
});

/** One 600 ms response: blocks close at ~100, ~300, ~500 ms, message ends at ~600 ms. */
const toolResponse: ScriptedMessage = {
  kind: 'message',
  blocks: [
    { type: 'tool_use', name: 'sleep', input: { n: 1 }, delayMs: 100 },
    { type: 'tool_use', name: 'sleep', input: { n: 2 }, delayMs: 200 },
    { type: 'tool_use', name: 'sleep', input: { n: 3 }, delayMs: 200 },
  ],
  endDelayMs: 100,
};
const finalAnswer: ScriptedMessage = { kind: 'message', blocks: [{ type: 'text', text: 'done' }] };

async function withServer<T>(script: Script, body: (baseURL: string) => Promise<T>): Promise<T> {
  const server = await startScriptedServer({ script });
  try {
    return await body(server.baseURL);
  } finally {
    await server.close();
  }
}

async function timeOurs(): Promise<number> {
  return withServer([toolResponse, finalAnswer], async (baseURL) => {
    const client = createMessagesClient({ baseURL, apiKey: 'bench', maxRetries: 0 });
    try {
      const start = performance.now();
      const events = await lastValueFrom(agentLoop({ model: MODEL, prompt: 'go', tools: [sleepTool], client }).pipe(toArray()));
      const end = performance.now();
      const terminal = events.at(-1);
      if (terminal?.type !== 'terminal' || terminal.reason !== 'completed') throw new Error('bench run did not complete');
      return end - start;
    } finally {
      await client.close();
    }
  });
}

async function timeRoundTrip(): Promise<number> {
  return withServer([finalAnswer], async (baseURL) => {
    const client = createMessagesClient({ baseURL, apiKey: 'bench', maxRetries: 0 });
    try {
      const start = performance.now();
      await lastValueFrom(agentLoop({ model: MODEL, prompt: 'go', client }).pipe(last()));
      return performance.now() - start;
    } finally {
      await client.close();
    }
  });
}

/** The plain way: whole message first, then each tool in turn, then the next request. */
async function timeSequential(): Promise<number> {
  return withServer([toolResponse, finalAnswer], async (baseURL) => {
    const client = createMessagesClient({ baseURL, apiKey: 'bench', maxRetries: 0 });
    try {
      const start = performance.now();
      const prompt: MessageParam = { role: 'user', content: 'go' };
      const tools = [{ name: 'sleep', description: sleepTool.description, input_schema: sleepTool.jsonSchema }];
      const first = await lastValueFrom(
        client.stream({ model: MODEL, max_tokens: 1024, messages: [prompt], tools, stream: true }).pipe(assembleBlocks(), toArray()),
      );
      const message = first.flatMap((e) => (e.type === 'message' ? [e.message] : []))[0]!;
      const results = [];
      for (const block of message.content) {
        if (block.type !== 'tool_use') continue;
        const controller = new AbortController();
        const output = await sleepTool.call(block.input as { n: number }, {
          signal: controller.signal,
          toolUseId: block.id,
          shared: {},
          progress: () => undefined,
        });
        results.push({ type: 'tool_result' as const, tool_use_id: block.id, content: String(output) });
      }
      await lastValueFrom(
        client
          .stream({
            model: MODEL,
            max_tokens: 1024,
            messages: [prompt, { role: 'assistant', content: message.content }, { role: 'user', content: results }],
            tools,
            stream: true,
          })
          .pipe(last()),
      );
      return performance.now() - start;
    } finally {
      await client.close();
    }
  });
}

async function latency(): Promise<{ ratio: number; speedup: number }> {
  await timeRoundTrip(); // warm-up (sockets, JIT)
  const ours: number[] = [];
  const sequential: number[] = [];
  const roundTrips: number[] = [];
  for (let i = 0; i < 3; i++) {
    roundTrips.push(await timeRoundTrip());
    ours.push(await timeOurs());
    sequential.push(await timeSequential());
  }
  const ideal = 500 + TOOL_MS + median(roundTrips);
  return { ratio: median(ours) / ideal, speedup: median(sequential) / median(ours) };
}

export const loopBench: BenchModule = {
  name: 'loop',
  async run(): Promise<Figures> {
    const ratio = await overheadRatio();
    const lat = await latency();
    return {
      'loop.iteration_overhead_ratio_1000_vs_10': spreadFigure(ratio, MIN_ROUNDS, 'ratio', '<= 1.5'),
      'latency.turn_ratio_to_ideal': { value: lat.ratio, unit: 'ratio', target: '<= 1.1' },
      'latency.speedup_vs_sequential': { value: lat.speedup, unit: 'ratio', target: '>= 1.5' },
    };
  },
};
