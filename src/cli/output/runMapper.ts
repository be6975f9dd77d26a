/**
 * The stream-json mapper of a run's own turns, with everything the run knows filled in: the
 * structured answer (`--json-schema`), a cut-off tool's stopped result (Bash's `interrupted:
 * true` after an interrupt, a SIGINT or a deadline), the line uuids for `--resume-session-at`,
 * and the session's running totals. `-p` and every stream-json turn build it here, so a fact one
 * of them prints cannot go missing from the other.
 */
import { randomUUID } from 'node:crypto';
import { costOf, priceFor } from '../../loop/pricing.js';
import type { Usage } from '../../protocol/content.js';
import { describeRun, type PreparedRun } from '../buildRun.js';
import { createModelUsage } from './sdkShapes.js';
import { createStreamJsonMapper, type StreamJsonMapper } from './streamJson.js';
import type { SpentResponse } from './sessionSpending.js';

/**
 * What the `result` lines of one session add up, as the Agent SDK documents them: `modelUsage`
 * and `total_cost_usd` are running totals over the session's turns (a `/clear` starts new ones;
 * a resumed session starts from what its transcript spent), while `usage` and the durations
 * stay per turn. `get_usage` answers from the same totals.
 */
export interface SessionTotals {
  readonly modelUsage: ReturnType<typeof createModelUsage>;
  /** The cost of the turns that have printed their result. */
  costUsd: number;
  /** Model turns and the time spent in them (for `/cost`). */
  turns: number;
  turnMs: number;
  /** Time spent waiting for the model (the results' `duration_api_ms`, summed). */
  apiMs: number;
  /** Lines the file edits added and removed. */
  linesAdded: number;
  linesRemoved: number;
  readonly startedAt: number;
  /** The usage of the main loop's latest response: how big its request was (`/context`). */
  lastUsage?: Usage;
}

/** New totals; `before`: the responses a resumed session's transcript holds, counted as spent already. */
export function createSessionTotals(maxOutputTokens: number, before: readonly SpentResponse[] = []): SessionTotals {
  const totals: SessionTotals = { modelUsage: createModelUsage(maxOutputTokens), costUsd: 0, turns: 0, turnMs: 0, apiMs: 0, linesAdded: 0, linesRemoved: 0, startedAt: Date.now() };
  for (const response of before) {
    totals.costUsd += chargeOutsideLoop(totals, response.model, response.usage);
    totals.turns += 1;
  }
  return totals;
}

/** A model call outside a turn's loop (the summary of a `/compact`): counted in the totals; answers its cost. */
export function chargeOutsideLoop(totals: SessionTotals, model: string, usage: Usage): number {
  totals.modelUsage.add(model, usage);
  return costOf(usage, priceFor(model));
}

export function createRunMapper(run: PreparedRun, options: { readonly includePartialMessages: boolean; readonly totals?: SessionTotals }): StreamJsonMapper {
  return createStreamJsonMapper(describeRun(run), {
    includePartialMessages: options.includePartialMessages,
    newUuid: randomUUID,
    now: Date.now,
    structuredOutput: () => run.structuredOutput(),
    stoppedResult: (toolName) => run.tools.find((t) => t.name === toolName)?.stoppedResult?.('interrupted'),
    ...(run.recordLines ? { onMessageLines: run.recordLines } : {}),
    ...(options.totals ? { modelUsage: options.totals.modelUsage, costBefore: options.totals.costUsd } : {}),
  });
}
