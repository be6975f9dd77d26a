/** What the command sends besides the conversation: model choice, max_tokens, thinking, effort, caching. */
import { describe, expect, it } from 'vitest';
import {
  chooseModel,
  maxOutputTokensFor,
  modelRequestShape,
  modelStartWarnings,
  promptCachingFromEnv,
  thinkingBudgetFrom,
  thinkingFor,
} from '../../src/cli/modelRequest.js';
import { DEFAULT_MODEL } from '../../src/context/modelTable.js';
import { ConfigurationError } from '../../src/errors.js';

describe('the model of a run', () => {
  it('--model, then ANTHROPIC_MODEL, then the settings model, then the default; aliases resolve', () => {
    expect(chooseModel('opus', 'claude-haiku-4-5', { ANTHROPIC_MODEL: 'sonnet' })).toBe('claude-opus-5-5');
    expect(chooseModel(undefined, 'claude-haiku-4-5', { ANTHROPIC_MODEL: 'claude-opus-4-8' })).toBe('claude-opus-4-8');
    expect(chooseModel(undefined, 'haiku', {})).toBe('claude-haiku-5-5');
    expect(chooseModel(undefined, undefined, { ANTHROPIC_MODEL: '' })).toBe(DEFAULT_MODEL);
    expect(chooseModel('haiku', undefined, { ANTHROPIC_SMALL_FAST_MODEL: 'claude-haiku-4-5' })).toBe('claude-haiku-4-5');
  });
});

describe('max_tokens', () => {
  it('32000 by default, CLAUDE_CODE_MAX_OUTPUT_TOKENS sets it, never above the model limit', () => {
    expect(maxOutputTokensFor('claude-sonnet-5-5', {})).toBe(32_000);
    expect(maxOutputTokensFor('claude-sonnet-5-5', { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '64000' })).toBe(64_000);
    expect(maxOutputTokensFor('claude-3-5-haiku', {})).toBe(8_192);
    expect(maxOutputTokensFor('claude-haiku-4-5', { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '100000' })).toBe(64_000);
    expect(maxOutputTokensFor('some-future-model', { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '100000' })).toBe(100_000);
    expect(() => maxOutputTokensFor('claude-sonnet-5-5', { CLAUDE_CODE_MAX_OUTPUT_TOKENS: 'lots' })).toThrow(ConfigurationError);
    expect(() => maxOutputTokensFor('claude-sonnet-5-5', { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '0' })).toThrow(/at least 1/);
  });
});

describe('thinking', () => {
  it('defaults per model: a budget for budget models, adaptive for newer ones, none for unknown models', () => {
    expect(thinkingFor('claude-sonnet-4-5', 32_000, {})).toEqual({ type: 'enabled', budget_tokens: 31_999 });
    expect(thinkingFor('claude-sonnet-5-5', 32_000, {})).toEqual({ type: 'adaptive' });
    expect(thinkingFor('claude-3-5-haiku', 8_192, {})).toBeUndefined();
    expect(thinkingFor('some-future-model', 32_000, {})).toBeUndefined();
  });

  it('a budget (flag over MAX_THINKING_TOKENS) sets it; 0 turns it off; an explicit budget applies to an unknown model', () => {
    expect(thinkingBudgetFrom(undefined, { MAX_THINKING_TOKENS: '5000' })).toBe(5000);
    expect(thinkingBudgetFrom(2048, { MAX_THINKING_TOKENS: '5000' })).toBe(2048);
    expect(() => thinkingBudgetFrom(undefined, { MAX_THINKING_TOKENS: '-1' })).toThrow(/MAX_THINKING_TOKENS/);
    expect(thinkingFor('claude-haiku-4-5', 32_000, { budget: 5000 })).toEqual({ type: 'enabled', budget_tokens: 5000 });
    expect(thinkingFor('claude-haiku-4-5', 16_000, { budget: 50_000 })).toEqual({ type: 'enabled', budget_tokens: 15_999 });
    expect(thinkingFor('claude-sonnet-5-5', 32_000, { budget: 0 })).toBeUndefined();
    expect(thinkingFor('some-future-model', 32_000, { budget: 4096 })).toEqual({ type: 'enabled', budget_tokens: 4096 });
  });

  it('--thinking as the Agent SDK passes it: disabled, adaptive (a budget model keeps its budget), enabled', () => {
    expect(thinkingFor('claude-sonnet-5-5', 32_000, { mode: 'disabled', budget: 9000 })).toBeUndefined();
    expect(thinkingFor('claude-sonnet-5-5', 32_000, { mode: 'adaptive' })).toEqual({ type: 'adaptive' });
    expect(thinkingFor('claude-sonnet-4-5', 32_000, { mode: 'adaptive' })).toEqual({ type: 'enabled', budget_tokens: 31_999 });
    expect(thinkingFor('claude-sonnet-5-5', 32_000, { mode: 'enabled', budget: 4000 })).toEqual({ type: 'enabled', budget_tokens: 4000 });
    expect(thinkingFor('claude-opus-5-5', 32_000, { mode: 'enabled', budget: 4000 })).toEqual({ type: 'adaptive' });
    expect(thinkingFor('claude-3-5-haiku', 8_192, { mode: 'enabled' })).toBeUndefined();
  });
});

describe('the request shape and start-up warnings', () => {
  it('effort goes to output_config for models that take it, with a warning otherwise', () => {
    expect(modelRequestShape('claude-sonnet-5-5', {}, {}, 'high')).toEqual({ maxOutputTokens: 32_000, thinking: { type: 'adaptive' }, outputConfig: { effort: 'high' } });
    expect(modelRequestShape('claude-sonnet-4-5', {}, {}, 'high').outputConfig).toBeUndefined();
    expect(modelStartWarnings('claude-sonnet-4-5', {}, 'high', '2026-01-01')).toEqual(['--effort high: claude-sonnet-4-5 does not take an effort level; ignored']);
  });

  it('an unknown model, a model past its end of life and a capped max_tokens each warn once', () => {
    expect(modelStartWarnings(DEFAULT_MODEL, {}, undefined, '2026-12-01')).toEqual([]);
    expect(modelStartWarnings('my-model', {}, undefined, '2026-12-01')[0]).toMatch(/not in rxagent's model table.*highest price/);
    expect(modelStartWarnings('claude-sonnet-4-5', {}, undefined, '2026-12-01')[0]).toMatch(/end of life/);
    expect(modelStartWarnings('claude-haiku-4-5', { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '70000' }, undefined, '2026-01-01')).toEqual([
      "CLAUDE_CODE_MAX_OUTPUT_TOKENS=70000 is above claude-haiku-4-5's limit; 64000 is used",
    ]);
  });

  it('prompt caching is on unless DISABLE_PROMPT_CACHING is set', () => {
    expect(promptCachingFromEnv({})).toBe(true);
    expect(promptCachingFromEnv({ DISABLE_PROMPT_CACHING: '0' })).toBe(true);
    expect(promptCachingFromEnv({ DISABLE_PROMPT_CACHING: '1' })).toBe(false);
    expect(promptCachingFromEnv({ DISABLE_PROMPT_CACHING: 'true' })).toBe(false);
  });
});
