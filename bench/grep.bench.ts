/**
 * Grep benchmark (issue 7 §6).
 *
 * - `tools.grep_ratio_to_system_grep`: our Grep tool (content mode with line numbers, the
 *   equivalent of `grep -rn`) over a generated tree of 20,000 small source files, divided by
 *   `grep -rn` on the same tree in the same run (wall time, medians of interleaved rounds).
 *   grep's stdout is piped into this process, not sent to /dev/null, because GNU grep stops at
 *   the first match when it sees its output is /dev/null. Target <= 3.
 *
 * The tree is generated in a temp dir from a seeded PRNG (same bytes every run) and removed. It
 * holds about 180 matching lines, so our output stays under Grep's output cap and both tools
 * scan every file and print every match.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObservable, lastValueFrom } from 'rxjs';
import { grepTool } from '../src/tools/builtin/grep.js';
import { createWorkspace } from '../src/tools/builtin/workspace.js';
import type { ToolCallContext } from '../src/tools/types.js';
import type { BenchModule, Figures } from './figures.js';
import { measureInterleaved, seededRandom } from './harness.js';

const FILES = 20_000;
const FILES_PER_DIR = 100;
const NEEDLE = 'needleXYZ';

const WORDS = ['const', 'let', 'function', 'return', 'value', 'index', 'result', 'items', 'map', 'filter', 'await', 'async', 'import', 'export', 'from', 'string', 'number', 'true', 'false', 'null'];

export async function generateGrepTree(root: string): Promise<void> {
  const random = seededRandom(7);
  const word = () => WORDS[Math.floor(random() * WORDS.length)] as string;
  for (let d = 0; d < FILES / FILES_PER_DIR; d++) {
    const dir = join(root, `pkg${d % 20}`, `mod${d}`);
    await mkdir(dir, { recursive: true });
    const writes: Promise<void>[] = [];
    for (let f = 0; f < FILES_PER_DIR; f++) {
      const lines: string[] = [];
      const lineCount = 10 + Math.floor(random() * 40);
      for (let l = 0; l < lineCount; l++) {
        const n = 3 + Math.floor(random() * 8);
        lines.push(Array.from({ length: n }, word).join(' ') + (random() < 0.0003 ? ` ${NEEDLE}` : ''));
      }
      writes.push(writeFile(join(dir, `file${f}.ts`), `${lines.join('\n')}\n`));
    }
    await Promise.all(writes);
  }
}

/** The same search as a regex that is not a plain string (no byte-level fast path for us). */
const NEEDLE_REGEX = 'needle[XW]YZ';

function systemGrep(root: string, pattern: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('grep', ['-rn', pattern, root], { stdio: ['ignore', 'pipe', 'inherit'] });
    let bytes = 0;
    child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(bytes) : reject(new Error(`grep exited with ${code}`))));
  });
}

export const grepBench: BenchModule = {
  name: 'grep',
  async run(): Promise<Figures> {
    const root = await mkdtemp(join(tmpdir(), 'rxagent-grep-bench-'));
    try {
      await generateGrepTree(root);
      const tool = grepTool(createWorkspace({ cwd: root }));
      const ctx: ToolCallContext = { signal: new AbortController().signal, toolUseId: 'bench', shared: {}, progress: () => {} };
      const ours = (pattern: string) => async () => {
        const returned = tool.call({ pattern, output_mode: 'content', '-n': true }, ctx);
        const answer = isObservable(returned) ? await lastValueFrom(returned) : await returned;
        // Grep answers with an outcome (its text plus the structured result) since tool_use_result.
        const out = typeof answer === 'object' && answer !== null && 'output' in answer ? answer.output : answer;
        if (typeof out !== 'string' || !out.includes(NEEDLE)) throw new Error('our Grep found nothing');
        // The comparison is only fair while our output is complete (grep prints every match).
        if (out.includes('[Output cut')) throw new Error('the bench tree has too many matches for an uncut Grep output');
      };
      const m = await measureInterleaved(
        {
          ours: ours(NEEDLE),
          grep: () => systemGrep(root, NEEDLE),
          oursRegex: ours(NEEDLE_REGEX),
          grepRegex: () => systemGrep(root, NEEDLE_REGEX),
        },
        { warmup: 1, rounds: 9 },
      );
      return {
        'tools.grep_ratio_to_system_grep': { value: m.ours.wall.median / m.grep.wall.median, unit: 'ratio', target: '<= 3' },
        'tools.grep_regex_ratio_to_system_grep': { value: m.oursRegex.wall.median / m.grepRegex.wall.median, unit: 'ratio' },
        'tools.grep_20k_files_ms': { value: m.ours.wall.median, unit: 'ms' },
        'tools.system_grep_20k_files_ms': { value: m.grep.wall.median, unit: 'ms' },
      };
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
};
