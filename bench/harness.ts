/**
 * A tiny benchmark harness: warm-up, N timed repetitions, median. Several cases are measured
 * round-robin (a, b, c, a, b, c, ...) so that load from other processes on a shared machine
 * falls on all of them alike, instead of on whichever case happened to run during a spike.
 * A full garbage collection runs before every sample, so no case pays for the garbage the
 * previous one left (a case that allocates much would otherwise slow down the next one).
 */
import { collectGarbage } from './gc.js';

export type BenchCase = () => unknown;

export interface MeasureOptions {
  readonly warmup: number;
  readonly repetitions: number;
}

export interface Measurement {
  /** Median wall-clock time (process.hrtime.bigint). */
  readonly medianMs: number;
  readonly samplesMs: readonly number[];
  /**
   * Median CPU time of this process (user + system) over the same runs: far less sensitive than
   * wall time to other processes competing for the cores, so ratios of it are steadier.
   */
  readonly medianCpuMs: number;
}

/** Times each case `repetitions` times, interleaved, after `warmup` untimed rounds. */
export async function measureInterleaved<K extends string>(
  cases: Readonly<Record<K, BenchCase>>,
  options: MeasureOptions,
): Promise<Record<K, Measurement>> {
  const names = Object.keys(cases) as K[];
  const samples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  const cpuSamples = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < options.warmup + options.repetitions; round++) {
    for (const name of names) {
      const run = cases[name];
      collectGarbage();
      const cpuStart = process.cpuUsage();
      const start = process.hrtime.bigint();
      await run();
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      const cpu = process.cpuUsage(cpuStart);
      if (round >= options.warmup) {
        samples[name].push(elapsed);
        cpuSamples[name].push((cpu.user + cpu.system) / 1000);
      }
    }
  }
  const result = {} as Record<K, Measurement>;
  for (const n of names) {
    result[n] = { medianMs: median(samples[n]), samplesMs: samples[n], medianCpuMs: median(cpuSamples[n]) };
  }
  return result;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** A small seeded PRNG (mulberry32), so every run benchmarks the same bytes. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
