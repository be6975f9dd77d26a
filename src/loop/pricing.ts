/**
 * Cost in USD from reported usage. Prices are per million tokens; cache writes and reads have
 * their own rates. The table is an option: pass your own for other models or new prices.
 */
import type { Usage } from '../protocol/content.js';
import type { UsageTotals } from './types.js';

/** USD per million tokens of one model, one rate per kind of token the API reports. */
export interface ModelPrice {
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  /** 5-minute cache write. */
  readonly cacheWritePerMTok: number;
  readonly cacheReadPerMTok: number;
}

/** Prices by model-name prefix (see `priceFor`); pass your own to price other models. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

const opus4: ModelPrice = { inputPerMTok: 15, outputPerMTok: 75, cacheWritePerMTok: 18.75, cacheReadPerMTok: 1.5 };
const opus45: ModelPrice = { inputPerMTok: 5, outputPerMTok: 25, cacheWritePerMTok: 6.25, cacheReadPerMTok: 0.5 };
const sonnet4: ModelPrice = { inputPerMTok: 3, outputPerMTok: 15, cacheWritePerMTok: 3.75, cacheReadPerMTok: 0.3 };
const haiku45: ModelPrice = { inputPerMTok: 1, outputPerMTok: 5, cacheWritePerMTok: 1.25, cacheReadPerMTok: 0.1 };
const haiku35: ModelPrice = { inputPerMTok: 0.8, outputPerMTok: 4, cacheWritePerMTok: 1, cacheReadPerMTok: 0.08 };

/** Keys are model-name prefixes; the longest matching prefix wins (dated ids match their family). */
export const DEFAULT_PRICES: PriceTable = {
  'claude-opus-4-5': opus45,
  'claude-opus-4-1': opus4,
  'claude-opus-4': opus4,
  'claude-sonnet-4-5': sonnet4,
  'claude-sonnet-4': sonnet4,
  'claude-3-7-sonnet': sonnet4,
  'claude-haiku-4-5': haiku45,
  'claude-3-5-haiku': haiku35,
};

/** The price of `model`: the entry with the longest key that prefixes it, or undefined for an unknown model. */
export function priceFor(model: string, table: PriceTable = DEFAULT_PRICES): ModelPrice | undefined {
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (model.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

/** Cost of one response. Unknown models cost 0 (a `warning` is the loop's business). */
export function costOf(usage: Usage, price: ModelPrice | undefined): number {
  if (!price) return 0;
  return (
    ((usage.input_tokens ?? 0) * price.inputPerMTok +
      (usage.output_tokens ?? 0) * price.outputPerMTok +
      (usage.cache_creation_input_tokens ?? 0) * price.cacheWritePerMTok +
      (usage.cache_read_input_tokens ?? 0) * price.cacheReadPerMTok) /
    1_000_000
  );
}

/** The usage totals of a run before its first response. */
export const ZERO_USAGE: UsageTotals = {
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
};

/** Adds one response's reported usage to the run's totals (missing counts are 0); returns new totals. */
export function addUsage(totals: UsageTotals, usage: Usage): UsageTotals {
  return {
    inputTokens: totals.inputTokens + (usage.input_tokens ?? 0),
    outputTokens: totals.outputTokens + (usage.output_tokens ?? 0),
    cacheCreationInputTokens: totals.cacheCreationInputTokens + (usage.cache_creation_input_tokens ?? 0),
    cacheReadInputTokens: totals.cacheReadInputTokens + (usage.cache_read_input_tokens ?? 0),
  };
}

/**
 * A USD budget that several loops can share (a parent and its subagents): each loop charges
 * every response to it and checks it before every model call.
 */
export interface CostBudget {
  readonly maxUsd: number;
  spentUsd(): number;
  charge(usd: number): void;
  exhausted(): boolean;
}

/** A budget of `maxUsd`, exhausted once the charges reach it; share it by passing it to each loop as `budget`. */
export function createCostBudget(maxUsd: number): CostBudget {
  let spent = 0;
  return {
    maxUsd,
    spentUsd: () => spent,
    charge: (usd) => {
      spent += usd;
    },
    exhausted: () => spent >= maxUsd,
  };
}
