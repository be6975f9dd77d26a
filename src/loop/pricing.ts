/**
 * Cost in USD from reported usage. Prices are per million tokens; cache writes and reads have
 * their own rates. The table is an option: pass your own for other models or new prices.
 */
import { highestPricedModel, MODEL_TABLE } from '../context/modelTable.js';
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

/** The API's cache prices: a 5-minute cache write costs 1.25x the input price, a read 0.1x. */
export function withCachePrices(inputPerMTok: number, outputPerMTok: number): ModelPrice {
  return { inputPerMTok, outputPerMTok, cacheWritePerMTok: inputPerMTok * 1.25, cacheReadPerMTok: inputPerMTok * 0.1 };
}

/** Keys are model ids from the model table; the longest matching prefix wins (dated ids match their family). */
export const DEFAULT_PRICES: PriceTable = Object.fromEntries(
  MODEL_TABLE.map((m) => [m.id, withCachePrices(m.inputPerMTok, m.outputPerMTok)] as const),
);

/** The price of `model`: the entry with the longest key that prefixes it, or undefined for an unknown model. */
export function priceFor(model: string, table: PriceTable = DEFAULT_PRICES): ModelPrice | undefined {
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (model.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

/**
 * The price to charge against a budget: the model's, or for a model the table does not know the
 * highest price in it, so `--max-budget-usd` still stops the run (never $0).
 */
export function budgetPriceFor(model: string, table: PriceTable = DEFAULT_PRICES): ModelPrice {
  const known = priceFor(model, table);
  if (known) return known;
  const prices = Object.values(table);
  if (prices.length === 0) {
    const top = highestPricedModel();
    return withCachePrices(top.inputPerMTok, top.outputPerMTok);
  }
  return prices.reduce((a, b) => (b.inputPerMTok + b.outputPerMTok > a.inputPerMTok + a.outputPerMTok ? b : a));
}

/** Cost of one response. Unknown models cost 0 without a budget (see `budgetPriceFor` for one). */
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
