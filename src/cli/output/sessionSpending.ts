/**
 * What a session spent before this process took it over, read from its transcript: each
 * assistant record's model and usage. A resumed (or continued) session's totals start from
 * these, as Claude Code restores a resumed session's cost, so `total_cost_usd`, `modelUsage`
 * and `get_usage` keep counting where the earlier process stopped instead of at 0.
 *
 * Known only from the main transcript: subagents' responses (their own transcripts) and the
 * summary request of a manual `/compact` (no assistant record) are not in it.
 */
import type { Usage } from '../../protocol/content.js';
import type { SessionRecord } from '../../session/records.js';

/** One response of the session: the model that answered and its usage. */
export interface SpentResponse {
  readonly model: string;
  readonly usage: Usage;
}

export function spendingOf(records: readonly SessionRecord[]): SpentResponse[] {
  const spent: SpentResponse[] = [];
  for (const record of records) {
    if (record.type !== 'assistant' || record.usage === undefined || record.model === undefined) continue;
    spent.push({ model: record.model, usage: record.usage });
  }
  return spent;
}
