/**
 * The status line under the prompt, and the numbers behind it (pure): the model, the permission
 * mode, how full the context window is (the last request's input plus its answer, against the
 * model's window) and what this run has cost so far.
 */
import { modelLimits } from '../../context/models.js';
import type { Usage } from '../../protocol/content.js';

export interface RunTotals {
  readonly turns: number;
  readonly costUsd: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  /** Time spent in turns (model and tools), not waiting at the prompt. */
  readonly turnMs: number;
}

export const NO_TOTALS: RunTotals = { turns: 0, costUsd: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, turnMs: 0 };

/** Tokens the context holds after a response with this usage: all its input and its output. */
export function contextTokensOf(usage: Usage): number {
  return (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.output_tokens ?? 0);
}

export function contextPercent(model: string, tokens: number): number {
  return Math.min(100, Math.round((100 * tokens) / modelLimits(model).contextWindow));
}

export interface StatusInput {
  readonly model: string;
  readonly permissionMode: string;
  readonly contextTokens: number;
  readonly costUsd: number;
  /** What the view is doing: idle, a turn, a question... */
  readonly activity?: string;
}

export function statusLine(s: StatusInput): string {
  const parts = [s.model, `${s.permissionMode} mode`, `context ${contextPercent(s.model, s.contextTokens)}%`, `$${s.costUsd.toFixed(4)}`];
  if (s.activity) parts.push(s.activity);
  return parts.join(' · ');
}

export function costReport(totals: RunTotals, wallMs: number): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return [
    `Total cost:      $${totals.costUsd.toFixed(4)}`,
    `Turns:           ${totals.turns}`,
    `Tokens:          ${n(totals.inputTokens)} input, ${n(totals.outputTokens)} output, ${n(totals.cacheReadTokens)} cache read, ${n(totals.cacheWriteTokens)} cache write`,
    `Time in turns:   ${(totals.turnMs / 1000).toFixed(1)}s`,
    `Time since start: ${(wallMs / 1000).toFixed(1)}s`,
  ].join('\n');
}
