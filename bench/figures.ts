/** The shape of `bench/results.json` and the registry contract for bench modules. */

export interface Figure {
  readonly value: number;
  readonly unit: string;
  /** The goal, as text (e.g. `<= 1.5`), shown next to the value. */
  readonly target?: string;
}

export type Figures = Record<string, Figure>;

/** One area's benchmarks: runs them and returns its figures, named `<area>.<case>.<measure>`. */
export interface BenchModule {
  readonly name: string;
  run(): Promise<Figures>;
}
