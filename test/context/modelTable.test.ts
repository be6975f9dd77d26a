/** The model table: every model the SDK names, aliases, defaults, unknown models, thinking defaults. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelLimits } from '../../src/context/models.js';
import { DEFAULT_MODEL, highestPricedModel, modelInfo, modelWarning, resolveModel } from '../../src/context/modelTable.js';
import { betasFor, defaultThinkingFor, INTERLEAVED_THINKING_BETA } from '../../src/context/thinkingDefaults.js';
import { budgetPriceFor, priceFor } from '../../src/loop/pricing.js';

/** The model ids of `@anthropic-ai/sdk`'s `Model` type (a devDependency), read from its typings. */
function sdkModels(): string[] {
  // The package's main entry sits at its root; its exports map hides package.json.
  const root = dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sdk'));
  const typings = readFileSync(join(root, 'resources', 'messages', 'messages.d.ts'), 'utf8');
  const line = /export type Model = ([^;]+);/.exec(typings)?.[1] ?? '';
  return [...line.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
}

describe('model table', () => {
  it('knows every model the SDK names, with limits and a price', () => {
    const ids = sdkModels();
    expect(ids.length).toBeGreaterThan(10);
    for (const id of ids) {
      expect(modelInfo(id), id).toBeDefined();
      expect(priceFor(id), id).toBeDefined();
      expect(modelLimits(id).contextWindow, id).toBe(modelInfo(id)!.contextWindow);
    }
  });

  it('the default model is current (not past its end of life); claude-sonnet-4-5 is, and says so', () => {
    expect(modelWarning(DEFAULT_MODEL, '2026-12-01')).toBeUndefined();
    expect(modelWarning('claude-sonnet-4-5-20250929', '2026-12-01')).toMatch(/end of life on 2026-11-30/);
  });

  it('resolves aliases and the environment as Claude Code does', () => {
    expect(resolveModel('sonnet')).toBe('claude-sonnet-5-5');
    expect(resolveModel('Opus')).toBe('claude-opus-5-5');
    expect(resolveModel('haiku')).toBe('claude-haiku-5-5');
    expect(resolveModel(undefined)).toBe(DEFAULT_MODEL);
    expect(resolveModel(undefined, { ANTHROPIC_MODEL: 'opus' })).toBe('claude-opus-5-5');
    expect(resolveModel('claude-opus-4-8', { ANTHROPIC_MODEL: 'haiku' })).toBe('claude-opus-4-8');
    expect(resolveModel('haiku', { ANTHROPIC_SMALL_FAST_MODEL: 'claude-haiku-4-5' })).toBe('claude-haiku-4-5');
    expect(resolveModel('my-proxy-model')).toBe('my-proxy-model');
  });

  it('an unknown model warns, and under a budget costs the highest price in the table, never $0', () => {
    expect(modelWarning('gpt-something', '2026-12-01')).toMatch(/not in rxagent's model table.*highest price/);
    expect(priceFor('gpt-something')).toBeUndefined();
    const top = highestPricedModel();
    expect(budgetPriceFor('gpt-something')).toEqual(priceFor(top.id));
    expect(budgetPriceFor('gpt-something').inputPerMTok).toBeGreaterThan(0);
  });
});

describe('thinking defaults', () => {
  it('claude-sonnet-4-5: a 31999-token budget with max_tokens 32000; the interleaved beta with tools', () => {
    const thinking = defaultThinkingFor('claude-sonnet-4-5', 32_000);
    expect(thinking).toEqual({ type: 'enabled', budget_tokens: 31_999 });
    expect(betasFor({ thinking, tools: [{}] })).toEqual([INTERLEAVED_THINKING_BETA]);
    expect(betasFor({ thinking, tools: [] })).toEqual([]);
  });

  it('newer models think adaptively (no beta needed); MAX_THINKING_TOKENS sets the budget, 0 turns it off', () => {
    expect(defaultThinkingFor('claude-sonnet-5-5', 32_000)).toEqual({ type: 'adaptive' });
    expect(betasFor({ thinking: { type: 'adaptive' }, tools: [{}] })).toEqual([]);
    expect(defaultThinkingFor('claude-sonnet-4-5', 32_000, 8_000)).toEqual({ type: 'enabled', budget_tokens: 8_000 });
    expect(defaultThinkingFor('claude-sonnet-4-5', 4_000, 8_000)).toEqual({ type: 'enabled', budget_tokens: 3_999 });
    expect(defaultThinkingFor('claude-sonnet-4-5', 32_000, 0)).toBeUndefined();
    expect(defaultThinkingFor('claude-sonnet-5-5', 32_000, 0)).toBeUndefined();
    expect(defaultThinkingFor('claude-3-5-haiku', 8_000)).toBeUndefined();
    expect(defaultThinkingFor('unknown-model', 32_000)).toBeUndefined();
  });
});
