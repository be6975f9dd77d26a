/**
 * The fields Claude Code prints that the Claude Agent SDK's types require, computed from what
 * rxagent knows: the API's full `usage` object (every field present, `null` where the API sent
 * nothing), the per-model usage of a run (`modelUsage`), and the SDK's retry error kinds.
 */
import type { Usage } from '../../protocol/content.js';
import { costOf, priceFor } from '../../loop/pricing.js';
import type { ModelUsage, RetryError } from '../outputSchemas.js';

/** Context windows rxagent assumes (the API does not report them): 200k for every current model. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

/**
 * A usage object with every field of the API's `BetaUsage`, as an assistant line carries it:
 * the values the API sent, `null` for the ones it did not.
 */
export function fullUsage(usage: Usage): Record<string, unknown> {
  const u = usage as Record<string, unknown>;
  return {
    input_tokens: num(u['input_tokens']),
    output_tokens: num(u['output_tokens']),
    cache_creation_input_tokens: orNull(u['cache_creation_input_tokens'] as number | null | undefined),
    cache_read_input_tokens: orNull(u['cache_read_input_tokens'] as number | null | undefined),
    cache_creation: orNull(u['cache_creation']),
    fallback_credit: orNull(u['fallback_credit']),
    inference_geo: orNull(u['inference_geo']),
    iterations: orNull(u['iterations']),
    output_tokens_details: orNull(u['output_tokens_details']),
    server_tool_use: orNull(u['server_tool_use']),
    service_tier: orNull(u['service_tier']),
    speed: orNull(u['speed']),
  };
}

/** The run's summed usage in the result line's shape: every field present and non-null, as Claude Code prints it. */
export function resultUsage(totals: { inputTokens: number; outputTokens: number; cacheCreationInputTokens: number; cacheReadInputTokens: number }, webSearchRequests = 0): Record<string, unknown> & {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
} {
  return {
    input_tokens: totals.inputTokens,
    output_tokens: totals.outputTokens,
    cache_creation_input_tokens: totals.cacheCreationInputTokens,
    cache_read_input_tokens: totals.cacheReadInputTokens,
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: totals.cacheCreationInputTokens },
    fallback_credit: null,
    inference_geo: '',
    iterations: [],
    output_tokens_details: { thinking_tokens: 0 },
    server_tool_use: { web_fetch_requests: 0, web_search_requests: webSearchRequests },
    service_tier: 'standard',
    speed: 'standard',
  };
}

/** Sums each response's usage under the model that answered it (a fallback model gets its own entry). */
export function createModelUsage(maxOutputTokens: number): { add(model: string, usage: Usage): void; snapshot(): Record<string, ModelUsage> } {
  const byModel = new Map<string, ModelUsage>();
  return {
    add(model, usage) {
      const entry = byModel.get(model) ?? {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        webSearchRequests: 0,
        costUSD: 0,
        contextWindow: DEFAULT_CONTEXT_WINDOW,
        maxOutputTokens,
      };
      entry.inputTokens += num(usage.input_tokens);
      entry.outputTokens += num(usage.output_tokens);
      entry.cacheReadInputTokens += num(usage.cache_read_input_tokens);
      entry.cacheCreationInputTokens += num(usage.cache_creation_input_tokens);
      entry.webSearchRequests += num((usage as { server_tool_use?: { web_search_requests?: unknown } }).server_tool_use?.web_search_requests);
      entry.costUSD += costOf(usage, priceFor(model));
      byModel.set(model, entry);
    },
    snapshot: () => Object.fromEntries([...byModel].map(([model, entry]) => [model, { ...entry }])),
  };
}

/** The kind of a retried failure, from the API's error type, else its HTTP status. */
export function sdkRetryError(errorType: string | undefined, status: number | undefined): RetryError {
  switch (errorType) {
    case 'overloaded_error':
      return 'overloaded';
    case 'rate_limit_error':
      return 'rate_limit';
    case 'api_error':
      return 'server_error';
    case 'authentication_error':
    case 'permission_error':
      return 'authentication_failed';
    case 'billing_error':
      return 'billing_error';
    case 'invalid_request_error':
      return 'invalid_request';
    case 'not_found_error':
      return 'model_not_found';
    default:
      if (status === 529) return 'overloaded';
      if (status === 429) return 'rate_limit';
      if (status !== undefined && status >= 500) return 'server_error';
      return 'unknown';
  }
}
