/** The shape of `bench/results.json` and the registry contract for bench modules. */
import type { Spread } from './harness.js';

export interface Figure {
  readonly value: number;
  readonly unit: string;
  /** The goal, as text (e.g. `<= 1.5`), shown next to the value. */
  readonly target?: string;
  /** For a median over rounds: its quartiles and how many rounds it rests on. */
  readonly p25?: number;
  readonly p75?: number;
  readonly rounds?: number;
}

export type Figures = Record<string, Figure>;

/** A figure from a median over rounds, with its spread. */
export function spreadFigure(spread: Spread, rounds: number, unit: string, target?: string): Figure {
  return { value: spread.median, unit, ...(target === undefined ? {} : { target }), p25: spread.p25, p75: spread.p75, rounds };
}

/** One area's benchmarks: runs them and returns its figures, named `<area>.<case>.<measure>`. */
export interface BenchModule {
  readonly name: string;
  run(): Promise<Figures>;
}
