/**
 * Every property test in `npm test` draws from one fixed seed, so a red run is a regression in
 * the code and never the luck of a draw (one CI run failed on a seed no earlier run had drawn).
 * New ground is explored on purpose: `RXAGENT_FC_SEED=random` (what `npm run test:soak` sets)
 * draws fresh seeds, and `RXAGENT_FC_SEED=<n>` replays the seed a failure printed. A test that
 * passes its own `seed` still wins over this default.
 */
import fc from 'fast-check';

const DEFAULT_SEED = 20261201;

const seedText = process.env['RXAGENT_FC_SEED'];
if (seedText !== 'random') {
  const seed = seedText === undefined || seedText === '' ? DEFAULT_SEED : Number(seedText);
  if (!Number.isInteger(seed)) throw new Error(`RXAGENT_FC_SEED must be an integer or "random", got ${seedText}`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
}
