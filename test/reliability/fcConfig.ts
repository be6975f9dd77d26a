/**
 * fast-check settings shared by the reliability suites. The seed comes from
 * test/setup/fastCheckSeed.ts (fixed in `npm test`, `RXAGENT_FC_SEED` to replay or explore);
 * `RXAGENT_FC_RUNS` scales the number of runs (the soak run sets it high).
 */
import type fc from 'fast-check';

export function fcParams(defaultRuns: number): fc.Parameters<unknown> {
  const runsText = process.env['RXAGENT_FC_RUNS'];
  const runs = runsText === undefined ? defaultRuns : Number(runsText);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`RXAGENT_FC_RUNS must be a positive integer, got ${runsText}`);
  return { numRuns: runs, endOnFailure: false, verbose: 1 };
}
