/**
 * The benchmark harness. What makes a figure trustworthy on a shared 2-core machine:
 *
 * - warm-up rounds first (JIT tiers, inline caches, lazily built tables), never timed;
 * - cases interleaved round by round, in alternating order (a b c, c b a, ...), so load from other
 *   processes falls on all cases alike and no case always runs right after the same neighbour
 *   (whose garbage it would otherwise inherit);
 * - a forced full GC before every sample, so no sample pays for the previous one's garbage;
 * - wall time and this process's CPU time (user + system) of each sample;
 * - at least 9 timed rounds, reported as the median with its spread (quartiles).
 *
 * Ratios between cases are taken per round (paired: both samples of a round saw the same load) and
 * the figure is the median of those ratios.
 */
import { collectGarbage } from './gc.js';

export type BenchCase = () => unknown;

/** The fewest timed rounds a figure may rest on. */
export const MIN_ROUNDS = 9;

export interface MeasureOptions {
  readonly warmup: number;
  /** Timed rounds; at least {@link MIN_ROUNDS}. */
  readonly rounds: number;
  /**
   * Default true: a full GC before every sample (what every target figure uses). False only for
   * the informative `*_steady` figures, which show how much of a figure the state right after a
   * forced full GC adds (see bench/README.md, "After a forced GC").
   */
  readonly gcBeforeEachSample?: boolean;
}

/** A median and the quartiles around it. */
export interface Spread {
  readonly median: number;
  readonly p25: number;
  readonly p75: number;
}

export interface Measurement {
  /** Wall-clock time of each timed round (process.hrtime.bigint), in round order. */
  readonly wallMs: readonly number[];
  /** CPU time of this process (user + system) over the same rounds: steadier under load from others. */
  readonly cpuMs: readonly number[];
  readonly wall: Spread;
  readonly cpu: Spread;
}

/** Times each case once per round, interleaved in alternating order, a full GC before each sample. */
export async function measureInterleaved<K extends string>(
  cases: Readonly<Record<K, BenchCase>>,
  options: MeasureOptions,
): Promise<Record<K, Measurement>> {
  if (!Number.isInteger(options.rounds) || options.rounds < MIN_ROUNDS) {
    throw new RangeError(`a figure needs at least ${MIN_ROUNDS} timed rounds, got ${options.rounds}`);
  }
  const names = Object.keys(cases) as K[];
  const wall = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < options.warmup + options.rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const run = cases[name];
      if (options.gcBeforeEachSample !== false) collectGarbage();
      const cpuStart = process.cpuUsage();
      const start = process.hrtime.bigint();
      await run();
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      const used = process.cpuUsage(cpuStart);
      if (round >= options.warmup) {
        wall[name].push(elapsed);
        cpu[name].push((used.user + used.system) / 1000);
      }
    }
  }
  const result = {} as Record<K, Measurement>;
  for (const n of names) result[n] = { wallMs: wall[n], cpuMs: cpu[n], wall: spreadOf(wall[n]), cpu: spreadOf(cpu[n]) };
  return result;
}

/** Per-round ratios `a / b` of two measurements of one run (paired samples), summarised. */
export function pairedRatio(a: Measurement, b: Measurement, clock: 'wall' | 'cpu'): Spread {
  const as = clock === 'wall' ? a.wallMs : a.cpuMs;
  const bs = clock === 'wall' ? b.wallMs : b.cpuMs;
  if (as.length !== bs.length) throw new RangeError('paired ratio of measurements with different round counts');
  return spreadOf(as.map((value, i) => value / (bs[i] as number)));
}

export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) throw new RangeError('spread of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p25: quantile(sorted, 0.25), p75: quantile(sorted, 0.75) };
}

export function median(values: readonly number[]): number {
  return spreadOf(values).median;
}

/** Linear interpolation between the closest ranks of an ascending array. */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  const lo = sorted[low] as number;
  return lo + ((sorted[high] as number) - lo) * (at - low);
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
