/**
 * fast-check settings shared by the reliability suites: `RXAGENT_FC_SEED` replays a failure,
 * `RXAGENT_FC_RUNS` scales the number of runs (the soak run sets it high).
 */
import type fc from 'fast-check';

export function fcParams(defaultRuns: number): fc.Parameters<unknown> {
  const seedText = process.env['RXAGENT_FC_SEED'];
  const runsText = process.env['RXAGENT_FC_RUNS'];
  const runs = runsText === undefined ? defaultRuns : Number(runsText);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`RXAGENT_FC_RUNS must be a positive integer, got ${runsText}`);
  const params: fc.Parameters<unknown> = { numRuns: runs, endOnFailure: false, verbose: 1 };
  if (seedText !== undefined && seedText !== '') {
    const seed = Number(seedText);
    if (!Number.isInteger(seed)) throw new Error(`RXAGENT_FC_SEED must be an integer, got ${seedText}`);
    return { ...params, seed };
  }
  return params;
}
