/**
 * `/compact [instructions]` sent as a stream-json user message, as the Agent SDK documents it for
 * Claude Code: instead of a model turn, the conversation so far is compacted now (the interactive
 * view's `compactRun`: PreCompact hooks with trigger `manual` and the instructions, one summary
 * request, a `manual` boundary in the transcript). Printed as a turn: `system/init`, one
 * `system/compact_boundary` (`compact_metadata.trigger: "manual"`, `pre_tokens`), one `result`.
 * A conversation of one exchange has nothing to compact: the result says so, still a success.
 */
import { randomUUID } from 'node:crypto';
import type { TerminalEvent, TerminalReason, UsageTotals } from '../../loop/types.js';
import { describeRun, type PreparedRun } from '../buildRun.js';
import { CompactCancelled, compactRun } from '../interactive/compactNow.js';
import { initLine } from '../output/streamJson.js';
import { chargeOutsideLoop, createRunMapper, createSessionTotals, type SessionTotals } from '../output/runMapper.js';
import { addUsage, ZERO_USAGE } from '../../loop/pricing.js';
import type { OutputLine } from '../outputSchemas.js';
import type { RunningTurn } from './runTurn.js';
import { localTerminal } from './localCommands.js';

export function startCompactTurn(options: {
  readonly run: PreparedRun;
  readonly instructions: string;
  readonly emit: (line: OutputLine) => void;
  /** The session's running totals (a `-p "/compact"` has its own). */
  readonly totals?: SessionTotals;
}): RunningTurn {
  const { run, emit, instructions } = options;
  const totals = options.totals ?? createSessionTotals(run.maxOutputTokens);
  const controller = new AbortController();
  const startedAt = Date.now();
  const mapper = createRunMapper(run, { includePartialMessages: false, totals });
  emit(initLine(describeRun(run), randomUUID()));
  /** The summary request's usage and cost: this turn's `usage`, and in the session's totals. */
  let spent: { usage: UsageTotals; costUsd: number } | undefined;
  const terminal = (reason: TerminalReason, text: string, failed: boolean) => localTerminal(run, startedAt, { reason, text, failed, ...spent });
  const finish = (event: TerminalEvent): 0 | 1 => {
    const line = mapper.result(event);
    emit(line);
    return line.is_error ? 1 : 0;
  };

  const done = (async (): Promise<0 | 1> => {
    try {
      const result = await compactRun(run, instructions, { signal: controller.signal, chainId: run.sessionId });
      if (!result) return finish(terminal('turn_setup_failed', '/compact: this run has no model client or transcript to compact with', true));
      if (result.type === 'too_short') return finish(terminal('completed', 'Nothing to compact yet: the conversation is a single exchange.', false));
      spent = { usage: addUsage(ZERO_USAGE, result.usage), costUsd: chargeOutsideLoop(totals, run.model, result.usage) };
      totals.costUsd += spent.costUsd;
      // The last request's size described the conversation before the summary.
      delete totals.lastUsage;
      for (const line of mapper.map({ type: 'compact_boundary', trigger: 'manual', preTokens: result.preTokens, postTokens: result.postTokens, chainId: run.sessionId, depth: 0 })) emit(line);
      return finish(terminal('completed', `Compacted: about ${result.preTokens} -> ${result.postTokens} tokens.`, false));
    } catch (error) {
      if (error instanceof CompactCancelled) return finish(terminal('aborted_streaming', error.message, false));
      return finish(terminal('model_error', `Compaction failed: ${(error as Error).message}. The conversation is unchanged.`, true));
    }
  })();

  return { submit: () => false, interrupt: () => controller.abort(), mapper, done };
}
