/**
 * Command start-up (issue 20 §3): how soon `rxagent -p` talks to the model after it is spawned.
 *
 * - `cli.first_request_ratio_to_node_floor`: spawn of `node <bin> -p hi` (the file package.json's
 *   `bin` names, dist/src/cli/main.cjs: bench/cliBin.ts) → its first request arriving at a loopback
 *   server in this process, divided by spawn → exit of `node -e "require('http')"` (the floor: a
 *   node process that loads http and quits). Paired runs (one of each per round, alternating which
 *   goes first), median of the per-round ratios.
 * - `cli.one_turn_ratio_to_node_floor`: spawn → exit of the whole one-turn run (a short text
 *   reply), over the same floor.
 * - `cli.first_request_ms`, `cli.one_turn_ms`, `cli.node_floor_ms`: the medians behind them.
 *
 * The server is a plain `node:http` server with a canned SSE reply: nothing of it runs in the
 * measured process, and it idles while the child starts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeSSEStream, scriptedMessageToEvents } from '../src/testing/encodeScript.js';
import { packageBin } from './cliBin.js';
import { spreadFigure, type BenchModule, type Figures } from './figures.js';
import { collectGarbage } from './gc.js';
import { MIN_ROUNDS, spreadOf } from './harness.js';

const CLI = packageBin();
const REPLY = encodeSSEStream(scriptedMessageToEvents({ kind: 'message', blocks: [{ type: 'text', text: 'hello' }] }).map((e) => e.event));
const ROUNDS = 11;

/** Runs a process to its exit; resolves with the ms from spawn to exit. */
function timedExit(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, started: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`exit ${code}: ${stderr.slice(0, 400)}`))));
  });
}

export const cliBench: BenchModule = {
  name: 'cli',
  async run(): Promise<Figures> {
    const root = mkdtempSync(join(tmpdir(), 'rxagent-bench-cli-'));
    const cwd = join(root, 'work');
    const home = join(root, 'home');
    mkdirSync(cwd);
    mkdirSync(home);
    let firstRequestAt: number | undefined;
    const server = createServer((req, res) => {
      firstRequestAt ??= performance.now();
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(REPLY);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: home,
      ANTHROPIC_API_KEY: 'bench-not-a-key',
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    };
    const floor = () => {
      collectGarbage();
      return timedExit(['-e', "require('http')"], env, cwd, performance.now());
    };
    const command = async () => {
      collectGarbage();
      firstRequestAt = undefined;
      const started = performance.now();
      const total = await timedExit([CLI, '-p', 'hi'], env, cwd, started);
      if (firstRequestAt === undefined) throw new Error('the command exited without a request');
      return { first: firstRequestAt - started, total };
    };
    try {
      await command(); // warm-up: the OS file cache
      await floor();
      const firsts: number[] = [];
      const totals: number[] = [];
      const floors: number[] = [];
      for (let round = 0; round < Math.max(ROUNDS, MIN_ROUNDS); round++) {
        let floorMs: number;
        let run: { first: number; total: number };
        if (round % 2 === 0) {
          floorMs = await floor();
          run = await command();
        } else {
          run = await command();
          floorMs = await floor();
        }
        floors.push(floorMs);
        firsts.push(run.first);
        totals.push(run.total);
      }
      const rounds = floors.length;
      const ratio = (xs: readonly number[]) => spreadOf(xs.map((x, i) => x / (floors[i] as number)));
      return {
        'cli.first_request_ratio_to_node_floor': spreadFigure(ratio(firsts), rounds, 'ratio', '<= 2.5'),
        'cli.one_turn_ratio_to_node_floor': spreadFigure(ratio(totals), rounds, 'ratio', '<= 3'),
        'cli.first_request_ms': spreadFigure(spreadOf(firsts), rounds, 'ms'),
        'cli.one_turn_ms': spreadFigure(spreadOf(totals), rounds, 'ms'),
        'cli.node_floor_ms': spreadFigure(spreadOf(floors), rounds, 'ms'),
      };
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    }
  },
};
