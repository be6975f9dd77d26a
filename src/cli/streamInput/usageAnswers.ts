/**
 * The session's spending as the host asks for it: `get_usage` (the SDK's
 * `query.usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET()`, `SDKControlGetUsageResponse`)
 * and `get_session_cost` (the text `/cost` prints), both from the session's running totals, so
 * they agree with the latest `result` line. rxagent runs on an API key: there is no claude.ai
 * plan, so no rate-limit windows and no transcript-scan `behaviors` (null, as Claude Code
 * answers for an API-key session).
 */
import { costReport } from '../interactive/statusLine.js';
import type { SessionTotals } from '../output/runMapper.js';

export function costText(totals: SessionTotals, now: number): string {
  const used = Object.values(totals.modelUsage.snapshot());
  const sum = (pick: (u: (typeof used)[number]) => number) => used.reduce((n, u) => n + pick(u), 0);
  return costReport(
    {
      turns: totals.turns,
      costUsd: totals.costUsd,
      inputTokens: sum((u) => u.inputTokens),
      outputTokens: sum((u) => u.outputTokens),
      cacheReadTokens: sum((u) => u.cacheReadInputTokens),
      cacheWriteTokens: sum((u) => u.cacheCreationInputTokens),
      turnMs: totals.turnMs,
    },
    now - totals.startedAt,
  );
}

export function usageResponse(totals: SessionTotals, now: number): Record<string, unknown> {
  return {
    session: {
      total_cost_usd: totals.costUsd,
      total_api_duration_ms: totals.apiMs,
      total_duration_ms: now - totals.startedAt,
      total_lines_added: totals.linesAdded,
      total_lines_removed: totals.linesRemoved,
      model_usage: totals.modelUsage.snapshot(),
    },
    subscription_type: null,
    rate_limits_available: false,
    rate_limits: null,
    behaviors: null,
  };
}

/** `get_session_cost`: sdk.d.ts gives no answer type and the SDK has no method that sends it; `text` is the `/cost` report. */
export function sessionCostResponse(totals: SessionTotals, now: number): Record<string, unknown> {
  return { text: costText(totals, now) };
}
