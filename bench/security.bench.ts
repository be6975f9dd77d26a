/**
 * Permission-check benchmark (issue 15 §4: "the permission check of one command is linear in its
 * size and never blocks the event loop"; a 60 KB command of 30,000 globs once held it for 19 s).
 *
 * One sample is one full `decidePermission` in the default mode with the rules a careful user
 * has (a Bash prefix deny, a Bash wildcard deny, a Read deny: each makes the check look at the
 * command again) on a hostile read-only-looking command, `cat a* a* …`, in a small workspace.
 * Every sample gets a command text never seen before (a different number of trailing spaces),
 * so the parse cache of one decision never carries over between samples.
 *
 * - `security.permission_check_ratio_60k_vs_6k`: 30,000 globs in 60 KB over 3,000 globs in
 *   6 KB, wall time, paired per round. Both are past what is classified (the 60 KB one by its
 *   length, the 6 KB one by its syntax nodes), so both must stop early: target ≤ 10 (linear or
 *   better), and in fact far below since the longer one is not even parsed.
 * - `security.permission_check_ratio_1000_vs_100_words`: 1,000 over 100 glob words, both
 *   classified in full (parse, walk, allowlist, path check per word, rule matching): ≤ 12 means
 *   linear (10) with room for noise; quadratic would be 100.
 * - the same in this process's CPU time (steadier on a loaded machine), and the medians behind
 *   them, in ms.
 * - `security.permission_check_stall_ratio_inline_vs_worker`: the longest the main thread goes
 *   without a turn of its event loop while one 1,000-word check is answered, computed inline
 *   over answered by the permission check's worker (bashCheckThread.ts), paired per round, a GC
 *   before each. The worker is what the CLI uses: the larger, the more of the check it keeps off
 *   the main thread (inline, the stall is the whole check). The worker's stall in ms beside it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decidePermission } from '../src/permissions/createPermissionPolicy.js';
import { createBashCheckThread } from '../src/permissions/bashCheckThread.js';
import { parseRuleStrings } from '../src/permissions/rules.js';
import type { BenchModule, Figures } from './figures.js';
import { measureInterleaved, MIN_ROUNDS, pairedRatio, spreadOf } from './harness.js';
import { spreadFigure } from './figures.js';

const RULES = parseRuleStrings({ deny: ['Bash(rm:*)', 'Bash(*curl*|*sh*)', 'Read(secrets/**)'] });

export const securityBench: BenchModule = {
  name: 'security',
  async run(): Promise<Figures> {
    const cwd = await mkdtemp(join(tmpdir(), 'rxagent-security-bench-'));
    try {
      await writeFile(join(cwd, 'a.txt'), 'x\n');
      await mkdir(join(cwd, 'secrets'));
      await writeFile(join(cwd, 'secrets', 'key'), 'k\n');
      let fresh = 0;
      const check = (globs: number) => () => {
        fresh++;
        const command = `cat ${'a* '.repeat(globs)}${' '.repeat(fresh % 7)}#${fresh}`;
        const verdict = decidePermission('default', RULES, { toolName: 'Bash', input: { command } }, { cwd });
        // A decision, never silence: every size must end in allow or ask (never deny: no rule matches).
        if (verdict.behavior === 'deny') throw new Error(`unexpected denial: ${verdict.reason}`);
        return verdict;
      };
      const m = await measureInterleaved(
        { g30000: check(30_000), g3000: check(3_000), w1000: check(1_000), w100: check(100) },
        { warmup: 2, rounds: 9 },
      );
      const big = pairedRatio(m.g30000, m.g3000, 'wall');
      const words = pairedRatio(m.w1000, m.w100, 'wall');
      const wordsCpu = pairedRatio(m.w1000, m.w100, 'cpu');
      const stall = await mainThreadStalls(cwd);
      return {
        'security.permission_check_stall_ratio_inline_vs_worker': spreadFigure(stall.ratio, MIN_ROUNDS, 'ratio', '>= 5'),
        'security.permission_check_worker_stall_ms': spreadFigure(stall.worker, MIN_ROUNDS, 'ms'),
        'security.permission_check_ratio_60k_vs_6k': { value: big.median, unit: 'ratio', target: '<= 10', p25: big.p25, p75: big.p75, rounds: 9 },
        'security.permission_check_ratio_1000_vs_100_words': { value: words.median, unit: 'ratio', target: '<= 12', p25: words.p25, p75: words.p75, rounds: 9 },
        'security.permission_check_cpu_ratio_1000_vs_100_words': { value: wordsCpu.median, unit: 'ratio', target: '<= 12', p25: wordsCpu.p25, p75: wordsCpu.p75, rounds: 9 },
        'security.permission_check_60k_ms': { value: m.g30000.wall.median, unit: 'ms' },
        'security.permission_check_6k_ms': { value: m.g3000.wall.median, unit: 'ms' },
        'security.permission_check_1000_words_ms': { value: m.w1000.wall.median, unit: 'ms' },
        'security.permission_check_100_words_ms': { value: m.w100.wall.median, unit: 'ms' },
        'security.permission_check_6k_cpu_ms': { value: m.g3000.cpu.median, unit: 'ms' },
        'security.permission_check_1000_words_cpu_ms': { value: m.w1000.cpu.median, unit: 'ms' },
      };
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  },
};

/** The longest gap between turns of the main event loop until `answer` settles. */
async function longestStall(answer: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  let done = false;
  const turn = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (!done) setImmediate(turn);
  };
  setImmediate(turn);
  await answer();
  done = true;
  // The turn that sees the answer closes the last gap.
  await new Promise((resolve) => setImmediate(resolve));
  return Math.max(longest, performance.now() - last);
}

async function mainThreadStalls(cwd: string): Promise<{ ratio: ReturnType<typeof spreadOf>; worker: ReturnType<typeof spreadOf> }> {
  const thread = createBashCheckThread();
  const gc = (globalThis as { gc?: () => void }).gc;
  try {
    let fresh = 0;
    const request = () => ({ kind: 'decide' as const, mode: 'default' as const, rules: RULES, command: `cat ${'a* '.repeat(1_000)}#stall${fresh++}`, ctx: { cwd } });
    await thread.check(request()); // start the worker and load its parser outside the samples
    const inline: number[] = [];
    const worker: number[] = [];
    for (let round = 0; round < MIN_ROUNDS; round++) {
      gc?.();
      // Inline as a Promise would be: the check runs on this thread before the answer settles.
      inline.push(await longestStall(async () => decidePermission('default', RULES, { toolName: 'Bash', input: { command: request().command } }, { cwd })));
      gc?.();
      worker.push(await longestStall(() => thread.check(request())));
    }
    return { ratio: spreadOf(inline.map((ms, i) => ms / worker[i]!)), worker: spreadOf(worker) };
  } finally {
    await thread.stop();
  }
}
