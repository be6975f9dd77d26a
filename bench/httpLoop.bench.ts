/**
 * Iterations stay flat over HTTP (issue 20 §2): one 1000-turn run of `agentLoop` through the real
 * client to the scripted server in another process, one tool call per turn whose result is 2 KB,
 * so turn n's request carries n results (~2 MB at turn 1000).
 *
 * - `loop.http_iteration_ratio_1000_vs_10`: wall ms per iteration (between consecutive
 *   `iteration_start` events) at iterations 990-1000 over 10-20 of the same run; median of the
 *   per-run ratios over 9 runs, a full GC before each. Flat (target <= 1.5) means no per-turn cost
 *   of the client grows with the history; it includes the server's share (reading and parsing a
 *   body that does grow), which is why the CPU figure below is also given.
 * - `loop.http_iteration_cpu_ratio_1000_vs_10`: the same with this process's CPU time (the
 *   client's work only).
 * - `loop.http_iteration_ms_at_10`, `loop.http_iteration_ms_at_1000`: the two windows' wall means;
 *   `loop.http_iteration_cpu_ms_at_10`, `..._at_1000`: their CPU means.
 */
import { lastValueFrom, last, tap } from 'rxjs';
import { z } from 'zod';
import { agentLoop } from '../src/loop/agentLoop.js';
import { defineTool } from '../src/tools/defineTool.js';
import { createMessagesClient } from '../src/transport/createMessagesClient.js';
import { spreadFigure, type BenchModule, type Figures } from './figures.js';
import { collectGarbage } from './gc.js';
import { MIN_ROUNDS, spreadOf } from './harness.js';
import { startScriptedServerProcess } from './scriptedServerProcess.js';

const TURNS = 1000;
const RESULT = 'lorem ipsum dolor sit amet, '.repeat(74).slice(0, 2048);

const fetchTool = defineTool({
  name: 'fetch',
  description: 'Returns 2 KB of text',
  inputSchema: z.strictObject({ n: z.number() }),
  isConcurrencySafe: true,
  call: ({ n }: { n: number }) => `${n}: ${RESULT}`,
});

interface Stamp {
  readonly wall: number;
  readonly cpu: number;
}

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Wall and CPU stamps of every iteration_start of one run of `turns` turns. */
async function runStamps(baseURL: string, turns: number): Promise<Stamp[]> {
  const client = createMessagesClient({ baseURL, apiKey: 'bench-key', maxRetries: 0 });
  const stamps: Stamp[] = [];
  try {
    const terminal = await lastValueFrom(
      agentLoop({ model: 'claude-sonnet-4-5', prompt: `a run of ${turns} turns`, tools: [fetchTool], client, maxTurns: turns + 1 }).pipe(
        tap((e) => {
          if (e.type === 'iteration_start') stamps.push({ wall: performance.now(), cpu: cpuMs() });
        }),
        last(),
      ),
    );
    if (terminal.type !== 'terminal' || terminal.reason !== 'completed' || stamps.length !== turns) {
      throw new Error(`the ${turns}-turn run ended ${terminal.type === 'terminal' ? terminal.reason : terminal.type} after ${stamps.length} iterations`);
    }
  } finally {
    await client.close();
  }
  return stamps;
}

/** Mean cost of iterations [from, to) (1-based like the "turns 10-20"). */
function windowMean(stamps: readonly Stamp[], from: number, to: number, clock: keyof Stamp): number {
  return (stamps[to - 1]![clock] - stamps[from - 1]![clock]) / (to - from);
}

export async function runHttpLoopBench(rounds = MIN_ROUNDS): Promise<Figures> {
  const server = await startScriptedServerProcess('toolPerTurn');
  try {
    await runStamps(server.baseURL, 200); // warm-up: compiles the hot paths
    const wall: number[] = [];
    const cpu: number[] = [];
    const at10: number[] = [];
    const at1000: number[] = [];
    const cpuAt10: number[] = [];
    const cpuAt1000: number[] = [];
    for (let round = 0; round < rounds; round++) {
      collectGarbage();
      const stamps = await runStamps(server.baseURL, TURNS);
      const early = windowMean(stamps, 10, 20, 'wall');
      const late = windowMean(stamps, 990, 1000, 'wall');
      wall.push(late / early);
      const cpuEarly = windowMean(stamps, 10, 20, 'cpu');
      const cpuLate = windowMean(stamps, 990, 1000, 'cpu');
      cpu.push(cpuLate / cpuEarly);
      at10.push(early);
      at1000.push(late);
      cpuAt10.push(cpuEarly);
      cpuAt1000.push(cpuLate);
    }
    return {
      'loop.http_iteration_ratio_1000_vs_10': spreadFigure(spreadOf(wall), rounds, 'ratio', '<= 1.5'),
      'loop.http_iteration_cpu_ratio_1000_vs_10': spreadFigure(spreadOf(cpu), rounds, 'ratio', '<= 1.5'),
      'loop.http_iteration_ms_at_10': spreadFigure(spreadOf(at10), rounds, 'ms'),
      'loop.http_iteration_ms_at_1000': spreadFigure(spreadOf(at1000), rounds, 'ms'),
      'loop.http_iteration_cpu_ms_at_10': spreadFigure(spreadOf(cpuAt10), rounds, 'ms'),
      'loop.http_iteration_cpu_ms_at_1000': spreadFigure(spreadOf(cpuAt1000), rounds, 'ms'),
    };
  } finally {
    await server.close();
  }
}

export const httpLoopBench: BenchModule = { name: 'httpLoop', run: () => runHttpLoopBench() };
