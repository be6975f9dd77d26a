/**
 * What an agent tree node's phases add up to, and the one terminal the consumer sees. A node
 * runs its loop once per phase (the first prompt, then each notification or submission that
 * arrives while it waits for background children); the consumer still gets exactly one
 * terminal, so the phases' turns and usage are summed here and the cost is the whole subtree's.
 * Pure.
 */
import { addUsage, ZERO_USAGE } from '../loop/pricing.js';
import type { LoopEvent, TerminalEvent, UsageTotals } from '../loop/types.js';

export interface Totals {
  readonly turns: number;
  readonly usage: UsageTotals;
  /** The last phase's final text, or an earlier one's if the last had none. */
  readonly lastText: string | undefined;
}

export const NO_TOTALS: Totals = { turns: 0, usage: ZERO_USAGE, lastText: undefined };

/** The totals after a phase that ended with `terminal`. */
export function addPhase(totals: Totals, terminal: TerminalEvent): Totals {
  return {
    turns: totals.turns + terminal.turnCount,
    usage: sumUsage(totals.usage, terminal.usage),
    lastText: terminal.lastAssistantText ?? totals.lastText,
  };
}

/**
 * The tree's terminal: the last phase's, with the summed totals, the subtree's cost and the
 * node's whole duration; `reason` overrides the phase's (an abort while the tree waited).
 */
export function treeTerminal(
  last: TerminalEvent,
  totals: Totals,
  node: { readonly costUsd: number; readonly durationMs: number },
  reason: TerminalEvent['reason'] = last.reason,
): LoopEvent {
  const { lastAssistantText: _last, ...rest } = last;
  return {
    ...rest,
    reason,
    turnCount: totals.turns,
    usage: totals.usage,
    costUsd: node.costUsd,
    durationMs: node.durationMs,
    ...(totals.lastText !== undefined ? { lastAssistantText: totals.lastText } : {}),
  };
}

function sumUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return addUsage(a, {
    input_tokens: b.inputTokens,
    output_tokens: b.outputTokens,
    cache_creation_input_tokens: b.cacheCreationInputTokens,
    cache_read_input_tokens: b.cacheReadInputTokens,
  });
}
