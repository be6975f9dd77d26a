/**
 * `npm run bench`: runs every registered bench module in this process, prints a table, writes the
 * figures to `bench/results.json` and regenerates the README's benchmark table from that file.
 * A full run replaces the file; a run of named modules merges into it (the others' figures are
 * kept). Nothing else writes the file: no test does, so the tree stays clean after `npm test`.
 *
 * To add an area: write `bench/<area>.bench.ts` exporting a `BenchModule`, and list it below.
 * `node dist/bench/run.js <name> ...` runs only the named modules.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assemblyBench } from './assembly.bench.js';
import { cliBench } from './cli.bench.js';
import { cliHttpLoopBench } from './cliHttpLoop.bench.js';
import { contextBench } from './context.bench.js';
import { costBench } from './cost.bench.js';
import { grepBench } from './grep.bench.js';
import { loadBench } from './load.bench.js';
import { loopBench } from './loop.bench.js';
import { loopStreamBench } from './loopStream.bench.js';
import { httpLoopBench } from './httpLoop.bench.js';
import type { BenchModule, Figures } from './figures.js';
import { updateReadmeTable } from './readmeTable.js';
import { securityBench } from './security.bench.js';
import { sessionBench } from './session.bench.js';
import { soakBench } from './soak.bench.js';
import { toolsBench } from './tools.bench.js';

const MODULES: readonly BenchModule[] = [assemblyBench, toolsBench, sessionBench, contextBench, grepBench, loopBench, loopStreamBench, httpLoopBench, cliHttpLoopBench, loadBench, soakBench, costBench, cliBench, securityBench];

// Compiled to dist/bench/run.js; the results file lives in the source tree's bench/.
const RESULTS_PATH = fileURLToPath(new URL('../../bench/results.json', import.meta.url));
const README_PATH = fileURLToPath(new URL('../../README.md', import.meta.url));

function readExisting(): Figures {
  try {
    const parsed = JSON.parse(readFileSync(RESULTS_PATH, 'utf8')) as { figures?: Figures };
    return parsed.figures ?? {};
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
}

function printTable(figures: Figures): void {
  const rows = Object.entries(figures).map(([name, f]) => [name, formatValue(f.value), f.unit, f.target ?? '']);
  const header = ['figure', 'value', 'unit', 'target'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 1 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}

function formatValue(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(3);
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const selected = only.length === 0 ? MODULES : MODULES.filter((m) => only.includes(m.name));
  const measured: Figures = {};
  for (const module of selected) {
    const started = Date.now();
    Object.assign(measured, await module.run());
    console.error(`bench ${module.name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  printTable(measured);
  // A full run replaces every figure (none goes stale); a partial one keeps the others', re-read
  // right before writing so figures another run wrote meanwhile are kept.
  const merged = only.length === 0 ? measured : { ...readExisting(), ...measured };
  const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
  // Write then rename: a reader (or a concurrent run) never sees a half-written file.
  writeFileSync(`${RESULTS_PATH}.tmp`, `${JSON.stringify({ figures: sorted }, null, 2)}\n`);
  renameSync(`${RESULTS_PATH}.tmp`, RESULTS_PATH);
  console.log(`\nwrote ${Object.keys(measured).length} figure(s) to ${RESULTS_PATH}`);
  if (!updateReadmeTable(README_PATH, sorted)) console.error(`README.md has no benchmark table markers; not updated`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
