/**
 * The stop reasons beyond end_turn / tool_use / max_tokens / stop_sequence (SPEC §14), decided
 * before the usual no-tool path of `decideNoTools`. Pure.
 *
 * - `pause_turn`: the API paused a long turn of server tools (web search, code execution). The
 *   paused assistant content goes back unchanged as the last message, and the API resumes where
 *   it stopped; the continuation's content then joins that message (`appendAll`). Bounded, and
 *   an API attempt of the same turn, not a new turn.
 * - `refusal`: the model declined; the turn ends with its own terminal and the `stop_details`.
 * - a stop reason this version does not know: the turn ends as completed, with a warning (a new
 *   reason must never fail a run that produced an answer).
 * (`model_context_window_exceeded` never gets here: it is turned into the prompt-too-long error,
 * see `contextWindow.ts`.)
 */
import { KNOWN_STOP_REASONS, type AssistantMessage } from '../protocol/content.js';
import { assistantAddition, appendAll, terminal, type Addition, type Decision } from './decision.js';
import { replayable } from './messages.js';
import { pauseTurnContinuation } from './transitions.js';
import type { LoopState } from './types.js';

/** How many times in a row one turn may be resumed after `pause_turn`. */
export const PAUSE_TURN_CONTINUATION_LIMIT = 10;

const KNOWN: ReadonlySet<string> = new Set(KNOWN_STOP_REASONS);

/** The decision for the stop reasons this file handles; undefined for the usual ones. */
export function decideStopReason(state: LoopState, message: AssistantMessage, uuid: string): Decision | undefined {
  const reason = message.stop_reason;
  if (reason === null) return undefined;
  const kept = (): Addition[] => {
    const replay = replayable(message);
    return replay ? [assistantAddition(replay, uuid, message)] : [];
  };
  if (reason === 'pause_turn') {
    const additions = kept();
    if (state.pauseTurnContinuations >= PAUSE_TURN_CONTINUATION_LIMIT) {
      return terminal('completed', {
        additions,
        warnings: [`the API paused this turn ${PAUSE_TURN_CONTINUATION_LIMIT + 1} times in a row (pause_turn); ending it here`],
      });
    }
    // Nothing to send back (an empty pause) would make the request end in a user message again:
    // the same request resumes the turn just as well.
    return { type: 'continue', state: pauseTurnContinuation(state, appendAll(state, additions)), additions, warnings: [] };
  }
  if (reason === 'refusal') {
    const details = message.stop_details ?? null;
    return terminal('refusal', {
      additions: kept(),
      error: {
        kind: 'refusal',
        message: `the model declined to continue (stop_reason refusal)${details === null ? '' : `: ${JSON.stringify(details)}`}`,
        details,
      },
    });
  }
  if (!KNOWN.has(reason)) {
    return terminal('completed', {
      additions: kept(),
      warnings: [`the response ended with the stop reason "${reason}", which this version does not know; the turn ends here`],
    });
  }
  return undefined;
}
