/**
 * The one table of Claude models: every model `@anthropic-ai/sdk` 1.14 names (its `Model` type),
 * with its context window, largest output, how it thinks, its price and its end of life.
 *
 * Sources, checked 2026-12-01: the SDK's `Model` type and its deprecation list (end-of-life dates
 * of claude-sonnet-4-5, claude-opus-4-5 and claude-mythos-preview), and the model overview pages
 * of the Claude Platform docs (context window, max output, input/output price, thinking). A
 * Mythos model shares the specifications and price of the Fable model of the same version (the
 * docs say so). Cache prices follow the API's rule: a 5-minute cache write costs 1.25x the input
 * price, a cache read 0.1x. Where the docs give a tiered price ("from $0.10"), the lowest tier is
 * used. Dated ids (`claude-haiku-4-5-20251001`) find their entry by prefix.
 */

/** How a model takes `thinking`: a token budget (`enabled`), or `adaptive` (the model decides). */
export type ThinkingSupport = 'budget' | 'adaptive' | 'adaptive_always_on' | 'none';

export interface ModelInfo {
  readonly id: string;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly thinking: ThinkingSupport;
  /** USD per million input / output tokens. */
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  /** ISO date after which the API no longer serves the model (undefined: none announced). */
  readonly endOfLife?: string;
}

const M = 1_000_000;
const K128 = 128_000;

export const MODEL_TABLE: readonly ModelInfo[] = [
  { id: 'claude-fable-5-2', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive_always_on', inputPerMTok: 8, outputPerMTok: 40 },
  { id: 'claude-mythos-5-2', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive_always_on', inputPerMTok: 8, outputPerMTok: 40 },
  { id: 'claude-fable-5-1', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive_always_on', inputPerMTok: 10, outputPerMTok: 50 },
  { id: 'claude-mythos-5-1', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive_always_on', inputPerMTok: 10, outputPerMTok: 50 },
  { id: 'claude-fable-5', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive_always_on', inputPerMTok: 10, outputPerMTok: 50 },
  { id: 'claude-mythos-5', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive_always_on', inputPerMTok: 10, outputPerMTok: 50 },
  { id: 'claude-opus-5-5', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive_always_on', inputPerMTok: 4, outputPerMTok: 20 },
  { id: 'claude-sonnet-5-5', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive', inputPerMTok: 2, outputPerMTok: 10 },
  { id: 'claude-haiku-5-5', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive', inputPerMTok: 0.1, outputPerMTok: 0.5 },
  { id: 'claude-opus-5', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive', inputPerMTok: 5, outputPerMTok: 25 },
  { id: 'claude-sonnet-5', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive', inputPerMTok: 2, outputPerMTok: 10 },
  { id: 'claude-opus-4-8', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive', inputPerMTok: 5, outputPerMTok: 25 },
  { id: 'claude-opus-4-7', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive', inputPerMTok: 5, outputPerMTok: 25 },
  { id: 'claude-mythos-preview', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive', inputPerMTok: 10, outputPerMTok: 50, endOfLife: '2026-06-30' },
  { id: 'claude-opus-4-6', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive', inputPerMTok: 5, outputPerMTok: 25 },
  { id: 'claude-sonnet-4-6', contextWindow: M, maxOutputTokens: K128, thinking: 'adaptive', inputPerMTok: 3, outputPerMTok: 15 },
  { id: 'claude-haiku-4-5', contextWindow: 200_000, maxOutputTokens: 64_000, thinking: 'budget', inputPerMTok: 1, outputPerMTok: 5 },
  { id: 'claude-opus-4-5', contextWindow: 200_000, maxOutputTokens: 64_000, thinking: 'budget', inputPerMTok: 5, outputPerMTok: 25, endOfLife: '2027-01-22' },
  { id: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 64_000, thinking: 'budget', inputPerMTok: 3, outputPerMTok: 15, endOfLife: '2026-11-30' },
  // Older models a resumed session or a user may still name (no longer in the SDK's list).
  { id: 'claude-opus-4-1', contextWindow: 200_000, maxOutputTokens: 32_000, thinking: 'budget', inputPerMTok: 15, outputPerMTok: 75 },
  { id: 'claude-opus-4', contextWindow: 200_000, maxOutputTokens: 32_000, thinking: 'budget', inputPerMTok: 15, outputPerMTok: 75 },
  { id: 'claude-sonnet-4', contextWindow: 200_000, maxOutputTokens: 64_000, thinking: 'budget', inputPerMTok: 3, outputPerMTok: 15 },
  { id: 'claude-3-7-sonnet', contextWindow: 200_000, maxOutputTokens: 64_000, thinking: 'budget', inputPerMTok: 3, outputPerMTok: 15 },
  { id: 'claude-3-5-haiku', contextWindow: 200_000, maxOutputTokens: 8_192, thinking: 'none', inputPerMTok: 0.8, outputPerMTok: 4 },
];

/** The model used when none is named: the current Sonnet. */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

/** Claude Code's aliases, resolved before a request is sent (the API does not know them). */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
};

/** The entry of `model`: the longest id that prefixes it (dated ids find their family). */
export function modelInfo(model: string): ModelInfo | undefined {
  let best: ModelInfo | undefined;
  for (const entry of MODEL_TABLE) {
    if ((model === entry.id || model.startsWith(`${entry.id}-`) || model.startsWith(`${entry.id}@`)) && (best === undefined || entry.id.length > best.id.length)) {
      best = entry;
    }
  }
  return best;
}

/** The most expensive entry: what an unknown model is assumed to cost, so a budget still stops it. */
export function highestPricedModel(): ModelInfo {
  return MODEL_TABLE.reduce((a, b) => (b.inputPerMTok + b.outputPerMTok > a.inputPerMTok + a.outputPerMTok ? b : a));
}

/**
 * The model id to send for what the user typed: an alias resolved as Claude Code does
 * (`ANTHROPIC_MODEL` is the user's choice when no `--model` is given; `ANTHROPIC_DEFAULT_SONNET_MODEL`,
 * `ANTHROPIC_DEFAULT_OPUS_MODEL`, `ANTHROPIC_DEFAULT_HAIKU_MODEL` and the older
 * `ANTHROPIC_SMALL_FAST_MODEL` replace what an alias means; `default` is the default model),
 * anything else as is.
 */
export function resolveModel(
  requested: string | undefined,
  env: Readonly<Record<string, string | undefined>> = {},
): string {
  const choice = requested ?? (env['ANTHROPIC_MODEL'] || undefined) ?? DEFAULT_MODEL;
  const key = choice.toLowerCase();
  if (key === 'default') return DEFAULT_MODEL;
  const override = env[`ANTHROPIC_DEFAULT_${key.toUpperCase()}_MODEL`] || (key === 'haiku' ? env['ANTHROPIC_SMALL_FAST_MODEL'] : undefined);
  if (MODEL_ALIASES[key] !== undefined && override) return override;
  return MODEL_ALIASES[key] ?? choice;
}

/** Why a model deserves a warning at start (unknown, or past its end of life); undefined when it does not. */
export function modelWarning(model: string, today: string): string | undefined {
  const info = modelInfo(model);
  if (info === undefined) {
    const top = highestPricedModel();
    return (
      `model "${model}" is not in rxagent's model table: its limits are assumed, and its cost is estimated at the ` +
      `highest price in the table ($${top.inputPerMTok}/$${top.outputPerMTok} per MTok, ${top.id}) so a budget still applies`
    );
  }
  if (info.endOfLife !== undefined && info.endOfLife < today) {
    return `model "${model}" reached its end of life on ${info.endOfLife}; the API may refuse it (the current default is ${DEFAULT_MODEL})`;
  }
  return undefined;
}
