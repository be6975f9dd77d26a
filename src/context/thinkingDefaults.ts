/**
 * Thinking as Claude Code sends it (SPEC §14), from the model table:
 * - models that take a token budget (claude-sonnet-4-5, haiku-4-5, opus-4-5, older): `{type:
 *   "enabled", budget_tokens: 31999}` with `max_tokens: 32000`, the budget always below
 *   max_tokens; with tools, the interleaved-thinking beta so the model thinks between calls;
 * - newer models: `{type: "adaptive"}` (they decide how much to think, between tool calls too);
 * - `maxThinkingTokens` (`--max-thinking-tokens`, `MAX_THINKING_TOKENS`) sets the budget; 0
 *   turns thinking off (for a model that always thinks, nothing is sent and it thinks anyway);
 * - a model the table does not know gets no thinking: a field it may not accept would fail the
 *   request.
 */
import type { ThinkingConfig } from '../protocol/request.js';
import { modelInfo } from './modelTable.js';

/** Claude Code's default budget: one below its default max_tokens. */
export const DEFAULT_THINKING_BUDGET = 31_999;
/** The API's smallest budget. */
export const MIN_THINKING_BUDGET = 1_024;
export const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14';

/** The `thinking` field for `model`, or undefined to send none. */
export function defaultThinkingFor(model: string, maxOutputTokens: number, maxThinkingTokens?: number): ThinkingConfig | undefined {
  const support = modelInfo(model)?.thinking ?? 'none';
  if (support === 'none' || maxThinkingTokens === 0) return undefined;
  if (support === 'adaptive' || support === 'adaptive_always_on') return { type: 'adaptive' };
  const budget = Math.min(maxThinkingTokens ?? DEFAULT_THINKING_BUDGET, maxOutputTokens - 1);
  return budget >= MIN_THINKING_BUDGET ? { type: 'enabled', budget_tokens: budget } : undefined;
}

/** The `anthropic-beta` values a request needs: interleaved thinking for a budget with tools. */
export function betasFor(request: { readonly thinking?: { readonly type: string } | undefined; readonly tools?: readonly unknown[] | undefined }): string[] {
  return request.thinking?.type === 'enabled' && (request.tools?.length ?? 0) > 0 ? [INTERLEAVED_THINKING_BETA] : [];
}
