/**
 * What the command asks of the model besides the conversation, as Claude Code asks it (SPEC §14):
 * which model (aliases, `ANTHROPIC_MODEL`, settings), `max_tokens` (`CLAUDE_CODE_MAX_OUTPUT_TOKENS`,
 * never above the model's own limit), thinking (on by default where the model supports it;
 * `--max-thinking-tokens` / `MAX_THINKING_TOKENS`, `0` off; `--thinking enabled|adaptive|disabled`
 * as the Agent SDK passes it), `--effort` (the API's `output_config.effort`) and prompt caching
 * (on unless `DISABLE_PROMPT_CACHING` is set). Pure: the run asks again whenever the model or
 * the thinking budget changes (`set_model`, `set_max_thinking_tokens`).
 */
import { ConfigurationError } from '../errors.js';
import { modelInfo, modelWarning, resolveModel } from '../context/modelTable.js';
import { DEFAULT_THINKING_BUDGET, MIN_THINKING_BUDGET, defaultThinkingFor } from '../context/thinkingDefaults.js';
import type { ThinkingConfig } from '../protocol/request.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Claude Code's default `max_tokens` when the model allows it. */
export const CLI_DEFAULT_MAX_OUTPUT_TOKENS = 32_000;

export type ThinkingMode = 'enabled' | 'adaptive' | 'disabled';

/** The user's thinking choice: `--thinking` and a budget (`--max-thinking-tokens`, else `MAX_THINKING_TOKENS`). */
export interface ThinkingChoice {
  readonly mode?: ThinkingMode | undefined;
  readonly budget?: number | undefined;
}

/** What one request of `model` carries beyond the conversation. */
export interface ModelRequestShape {
  readonly maxOutputTokens: number;
  readonly thinking?: ThinkingConfig;
  /** The API's `output_config` (effort), when there is something to send. */
  readonly outputConfig?: { readonly effort: string };
}

/**
 * The model of the run, in Claude Code's order: `--model`, then `ANTHROPIC_MODEL`, then the
 * settings files' `model`, then the default; an alias (`sonnet`, `opus`, `haiku`, `default`)
 * resolves to a current model id.
 */
export function chooseModel(flag: string | undefined, settingsModel: string | undefined, env: Env): string {
  return resolveModel(flag ?? (env['ANTHROPIC_MODEL'] || undefined) ?? settingsModel, env);
}

/** A whole number >= 0 from an environment variable (undefined when unset or empty). */
export function wholeNumberFromEnv(env: Env, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ConfigurationError(`${name} must be a whole number >= 0 (got '${value}')`);
  return n;
}

/** Whether prompt caching is on: Claude Code's `DISABLE_PROMPT_CACHING` (any value but empty, 0, false) turns it off. */
export function promptCachingFromEnv(env: Env): boolean {
  const value = (env['DISABLE_PROMPT_CACHING'] ?? '').trim().toLowerCase();
  return value === '' || value === '0' || value === 'false';
}

/** The thinking budget the user chose: the flag wins over `MAX_THINKING_TOKENS`. */
export function thinkingBudgetFrom(flag: number | undefined, env: Env): number | undefined {
  return flag ?? wholeNumberFromEnv(env, 'MAX_THINKING_TOKENS');
}

/** `max_tokens` for `model`: `CLAUDE_CODE_MAX_OUTPUT_TOKENS` or 32000, capped at the model's limit. */
export function maxOutputTokensFor(model: string, env: Env): number {
  const asked = wholeNumberFromEnv(env, 'CLAUDE_CODE_MAX_OUTPUT_TOKENS');
  if (asked === 0) throw new ConfigurationError('CLAUDE_CODE_MAX_OUTPUT_TOKENS must be at least 1');
  const limit = modelInfo(model)?.maxOutputTokens ?? Number.POSITIVE_INFINITY;
  return Math.min(asked ?? CLI_DEFAULT_MAX_OUTPUT_TOKENS, limit);
}

/**
 * The `thinking` field for `model`. Without `--thinking`, Claude Code's default for the model
 * (a budget model gets `enabled` with the budget, a newer one `adaptive`, a model the table does
 * not know none unless a budget was asked for). `enabled` means a budget (adaptive for models that
 * always think); `adaptive` means adaptive where the model takes it, else its budget default.
 */
export function thinkingFor(model: string, maxOutputTokens: number, choice: ThinkingChoice): ThinkingConfig | undefined {
  if (choice.mode === 'disabled' || choice.budget === 0) return undefined;
  const support = modelInfo(model)?.thinking;
  const budget = (): ThinkingConfig | undefined => {
    const tokens = Math.min(choice.budget ?? DEFAULT_THINKING_BUDGET, maxOutputTokens - 1);
    return tokens >= MIN_THINKING_BUDGET ? { type: 'enabled', budget_tokens: tokens } : undefined;
  };
  switch (choice.mode) {
    case 'enabled':
      return support === 'adaptive_always_on' ? { type: 'adaptive' } : support === 'none' ? undefined : budget();
    case 'adaptive':
      return support === 'budget' ? budget() : support === 'none' ? undefined : { type: 'adaptive' };
    case undefined:
      if (support === undefined && choice.budget !== undefined) return budget();
      return defaultThinkingFor(model, maxOutputTokens, choice.budget);
  }
}

/** Models that take `output_config.effort`: those that think adaptively. */
function takesEffort(model: string): boolean {
  const support = modelInfo(model)?.thinking;
  return support === 'adaptive' || support === 'adaptive_always_on';
}

/** Everything one request of `model` carries beyond the conversation. */
export function modelRequestShape(model: string, env: Env, thinking: ThinkingChoice, effort: string | undefined): ModelRequestShape {
  const maxOutputTokens = maxOutputTokensFor(model, env);
  const config = thinkingFor(model, maxOutputTokens, thinking);
  return {
    maxOutputTokens,
    ...(config === undefined ? {} : { thinking: config }),
    ...(effort !== undefined && takesEffort(model) ? { outputConfig: { effort } } : {}),
  };
}

/** What is worth one warning line at start about the model and these settings. */
export function modelStartWarnings(model: string, env: Env, effort: string | undefined, today: string): string[] {
  const warnings: string[] = [];
  const about = modelWarning(model, today);
  if (about !== undefined) warnings.push(about);
  const asked = wholeNumberFromEnv(env, 'CLAUDE_CODE_MAX_OUTPUT_TOKENS');
  const limit = modelInfo(model)?.maxOutputTokens;
  if (asked !== undefined && limit !== undefined && asked > limit) {
    warnings.push(`CLAUDE_CODE_MAX_OUTPUT_TOKENS=${asked} is above ${model}'s limit; ${limit} is used`);
  }
  if (effort !== undefined && !takesEffort(model)) warnings.push(`--effort ${effort}: ${model} does not take an effort level; ignored`);
  return warnings;
}
