/**
 * Prompt-caching benchmark (issue 16 §2):
 * - `cost.cached_vs_uncached_20_turns`: the total cost of one 20-turn tool session on the scripted
 *   server (its prompt-cache simulation on), with the cache breakpoints rxagent places vs with
 *   caching turned off (`promptCaching: false`, what DISABLE_PROMPT_CACHING=1 does). Same script,
 *   same system prompt and tools, priced with the model table (writes 1.25x, reads 0.1x input).
 *
 * Deterministic (token counts, not time), so one run each suffices.
 */
import type { BenchModule, Figures } from './figures.js';
import { runCachingSession } from './cachingSession.js';

export const costBench: BenchModule = {
  name: 'cost',
  async run(): Promise<Figures> {
    const cached = await runCachingSession({ turns: 20, promptCaching: true });
    const uncached = await runCachingSession({ turns: 20, promptCaching: false });
    return {
      'cost.cached_vs_uncached_20_turns': { value: cached.costUsd / uncached.costUsd, unit: 'ratio', target: '<= 0.35' },
      'cost.uncached_20_turns_usd': { value: uncached.costUsd, unit: 'USD' },
    };
  },
};
