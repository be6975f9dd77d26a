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

/**
 * What the `result` lines of one session add up, as the Agent SDK documents them: `modelUsage`
 * and `total_cost_usd` are running totals over the session's turns (a `/clear` starts new ones),
 * while `usage` and the durations stay per turn.
 */
export interface SessionTotals {
  readonly modelUsage: ReturnType<typeof createModelUsage>;
  /** The cost of the turns that have printed their result. */
  costUsd: number;
  /** Model turns and the time spent in them (for `/cost`). */
  turns: number;
  turnMs: number;
  readonly startedAt: number;
  /** The usage of the main loop's latest response: how big its request was (`/context`). */
  lastUsage?: Usage;
}

export function createSessionTotals(maxOutputTokens: number): SessionTotals {
  return { modelUsage: createModelUsage(maxOutputTokens), costUsd: 0, turns: 0, turnMs: 0, startedAt: Date.now() };
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
