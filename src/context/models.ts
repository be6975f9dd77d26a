/**
 * Context window and output limits per model (SPEC §6). The table is matched by the longest
 * prefix of the model id, so dated ids (`claude-sonnet-4-5-20250929`) find their family; an
 * unknown model gets `DEFAULT_MODEL_LIMITS`. Callers override or extend it per governor. The
 * numbers come from the one model table (`modelTable.ts`).
 */
import { MODEL_TABLE } from './modelTable.js';

export interface ModelLimits {
  /** Input + output tokens the model accepts in one request. */
  readonly contextWindow: number;
  /** The largest `max_tokens` the model accepts. */
  readonly maxOutputTokens: number;
}

/** Limits by model-id prefix (the longest matching prefix wins). */
export type ModelLimitsTable = Readonly<Record<string, ModelLimits>>;

/** The limits assumed for a model the table does not know. */
export const DEFAULT_MODEL_LIMITS: ModelLimits = { contextWindow: 200_000, maxOutputTokens: 32_000 };

/** Keys are id prefixes (from the model table). The longest matching prefix wins. */
export const MODEL_LIMITS: ModelLimitsTable = Object.fromEntries(
  MODEL_TABLE.map((m) => [m.id, { contextWindow: m.contextWindow, maxOutputTokens: m.maxOutputTokens }] as const),
);

/**
 * The limits of `model`: the longest prefix match in `overrides` first, then in the built-in
 * table, then `fallback`. Overrides win even when shorter, so a caller's word is final.
 */
export function modelLimits(
  model: string,
  overrides: ModelLimitsTable = {},
  fallback: ModelLimits = DEFAULT_MODEL_LIMITS,
): ModelLimits {
  return longestPrefixMatch(model, overrides) ?? longestPrefixMatch(model, MODEL_LIMITS) ?? fallback;
}

function longestPrefixMatch(model: string, table: ModelLimitsTable): ModelLimits | undefined {
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (model.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}
