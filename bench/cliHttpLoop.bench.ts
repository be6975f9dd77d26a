/**
 * Iterations stay flat over HTTP, through the command (issue 20 §2): `node <bin> -p` (package.json's bin)
 * spawned as a user runs it, `ANTHROPIC_BASE_URL` at the scripted server in a process of its own,
 * for a 1000-turn conversation in which every turn is one call of the command's built-in Read on a
 * file of ~2 KB (a different file each turn: the command refuses a call repeated with the same
 * input), so turn n's request carries n results (~2.2 MB at turn 1000). Read is allowed by
 * `--allowedTools Read` (the usual flag; it is also the only tool offered, `--tools Read`), and the
 * transcript is kept on disk as by default (in a temporary HOME).
 *
 * - `cli.http_iteration_ratio_1000_vs_10`: ms between request arrivals at the server (stamped
 *   when a request's body has been read) at requests 990-1000 over 10-20 of the same run; median
 *   of the per-run ratios over 9 runs, a full GC of this process before each. The command is a
 *   fresh process each run, as a user's is: its turn-10 window still runs partly unoptimized code
 *   (which makes that window slower, the ratio lower), and that is what a user's run does too.
 * - `cli.http_iteration_ms_at_10`, `cli.http_iteration_ms_at_1000`: the two windows' means.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageBin } from './cliBin.js';
import { spreadFigure, type BenchModule, type Figures } from './figures.js';
import { collectGarbage } from './gc.js';
import { MIN_ROUNDS, spreadOf } from './harness.js';
import { startStampingServerProcess } from './scriptedServerProcess.js';

const CLI = packageBin();
const TURNS = 1000;
const WARM_UP_TURNS = 200;

/** `<dir>/<turn>.txt` for every turn: 16 lines of 120 characters (~1.9 KB; Read's line numbers make it ~2 KB). */
function writeFiles(dir: string, turns: number): void {
  const sentence = 'the quick brown fox jumps over the lazy dog, '.repeat(3);
  for (let turn = 0; turn < turns; turn++) {
    const lines: string[] = [];
    for (let line = 0; line < 16; line++) lines.push(`${turn}.${String(line).padStart(2, '0')}: ${sentence}`.slice(0, 120));
    writeFileSync(join(dir, `${turn}.txt`), `${lines.join('\n')}\n`);
  }
}

/** Runs the command for one conversation of `turns` turns; rejects unless it exits 0. */
function runCommand(turns: number, env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  const args = [CLI, '-p', `a run of ${turns} turns`, '--max-turns', String(turns + 1), '--tools', 'Read', '--allowedTools', 'Read'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the command exited ${code}: ${stderr.slice(0, 400)}`))));
  });
}

/** Mean ms per request over requests [from, to) (1-based like the "turns 10-20"). */
function windowMean(arrivals: readonly number[], from: number, to: number): number {
  return (arrivals[to - 1]! - arrivals[from - 1]!) / (to - from);
}

export async function runCliHttpLoopBench(rounds = MIN_ROUNDS): Promise<Figures> {
  const root = mkdtempSync(join(tmpdir(), 'rxagent-bench-clihttp-'));
  const cwd = join(root, 'work');
  const files = join(cwd, 'files');
  const home = join(root, 'home');
  mkdirSync(files, { recursive: true });
  mkdirSync(home);
  writeFiles(files, TURNS);
  const server = await startStampingServerProcess(`readPerTurn=${files}`);
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    ANTHROPIC_API_KEY: 'bench-not-a-key',
    ANTHROPIC_BASE_URL: server.baseURL,
  };
  /** One conversation: the command run to its exit, and the server's arrival stamps of its requests. */
  const conversation = async (turns: number): Promise<readonly number[]> => {
    const arrivals = server.nextArrivals();
    await runCommand(turns, env, cwd);
    const stamps = await arrivals;
    if (stamps.length !== turns) throw new Error(`the ${turns}-turn run made ${stamps.length} requests`);
    return stamps;
  };
  try {
    await conversation(WARM_UP_TURNS); // the server's hot paths, the OS file cache
    const ratios: number[] = [];
    const at10: number[] = [];
    const at1000: number[] = [];
    for (let round = 0; round < rounds; round++) {
      collectGarbage();
      const arrivals = await conversation(TURNS);
      const early = windowMean(arrivals, 10, 20);
      const late = windowMean(arrivals, 990, 1000);
      ratios.push(late / early);
      at10.push(early);
      at1000.push(late);
    }
    return {
      'cli.http_iteration_ratio_1000_vs_10': spreadFigure(spreadOf(ratios), rounds, 'ratio', '<= 1.5'),
      'cli.http_iteration_ms_at_10': spreadFigure(spreadOf(at10), rounds, 'ms'),
      'cli.http_iteration_ms_at_1000': spreadFigure(spreadOf(at1000), rounds, 'ms'),
    };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export const cliHttpLoopBench: BenchModule = { name: 'cliHttpLoop', run: () => runCliHttpLoopBench() };
