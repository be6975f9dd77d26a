/**
 * The final `result` record of a run (stream-json's last line, and the whole of `json` output),
 * built from the loop's terminal event. Subtypes and `is_error` follow Claude Code's print mode:
 * controlled stops are successes, `max_turns` and the cost cap have their own subtypes, and every
 * other error or cancellation is `error_during_execution`.
 */
import { apiErrorText } from './apiErrorText.js';
import type { LoopError, TerminalEvent, TerminalReason } from '../../loop/types.js';
import { assertNever } from '../../util/assertNever.js';
import type { ModelUsage, ResultLine, ResultSubtype } from '../outputSchemas.js';
import { resultUsage } from './sdkShapes.js';
import type { StructuredOutputState } from '../structuredOutput.js';

export interface PermissionDenial {
  readonly tool_name: string;
  readonly tool_use_id: string;
  readonly tool_input: unknown;
}

export interface ResultFacts {
  readonly sessionId: string;
  readonly uuid: string;
  /** stop_reason of the last assistant message, if any. */
  readonly stopReason: string | null;
  /** Wall time spent waiting for model responses. */
  readonly durationApiMs: number;
  /** Wall time of the whole run (the loop's own figure when absent). */
  readonly durationMs?: number;
  readonly permissionDenials: readonly PermissionDenial[];
  /** Usage per model that answered (empty when no response came). */
  readonly modelUsage?: Readonly<Record<string, ModelUsage>>;
  /** With `--json-schema`: the turn's structured answer, or why there is none. */
  readonly structuredOutput?: StructuredOutputState;
}

export function resultSubtypeOf(reason: TerminalReason): ResultSubtype {
  switch (reason) {
    case 'completed':
    case 'hook_stopped':
    case 'stop_hook_prevented':
    case 'tool_deferred':
      return 'success';
    case 'max_turns':
      return 'error_max_turns';
    case 'budget_exhausted':
      return 'error_max_budget_usd';
    case 'aborted_streaming':
    case 'aborted_tools':
    case 'blocking_limit':
    case 'rapid_refill_breaker':
    case 'prompt_too_long':
    case 'model_error':
    case 'api_error':
    case 'malformed_tool_use_exhausted':
    case 'turn_setup_failed':
    case 'refusal':
      return 'error_during_execution';
    default:
      return assertNever(reason);
  }
}

/** Exit status of print mode: 0 only when the turn ended by a controlled stop. */
export function exitCodeOf(reason: TerminalReason): 0 | 1 {
  return resultSubtypeOf(reason) === 'success' ? 0 : 1;
}

/** One line a person can act on: what ended the run and, for API errors, the status. */
export function describeTerminal(terminal: Pick<TerminalEvent, 'reason' | 'error' | 'turnCount'>): string {
  const error = terminal.error;
  switch (terminal.reason) {
    case 'max_turns':
      return `Reached the maximum number of turns (${terminal.turnCount}).`;
    case 'budget_exhausted':
      return error ? `Cost budget exhausted: ${error.message}` : 'Cost budget exhausted.';
    case 'aborted_streaming':
    case 'aborted_tools':
      return 'Interrupted.';
    default:
      return error ? describeError(terminal.reason, error) : `The run ended: ${terminal.reason}.`;
  }
}

function describeError(reason: TerminalReason, error: LoopError): string {
  return apiErrorText(error) ?? `${error.message} [${reason}]`;
}

export function buildResultLine(terminal: TerminalEvent, facts: ResultFacts): ResultLine {
  const structured = facts.structuredOutput;
  // A turn that ended well but without a valid structured answer is the structured-output error.
  const structuredFailed = structured?.status === 'failed' && resultSubtypeOf(terminal.reason) === 'success';
  const subtype = structuredFailed ? 'error_max_structured_output_retries' : resultSubtypeOf(terminal.reason);
  const isError = subtype !== 'success';
  const errors = structuredFailed ? [`Structured output failed: ${structured.reason}.`] : isError ? [describeTerminal(terminal)] : undefined;
  return {
    type: 'result',
    subtype,
    session_id: facts.sessionId,
    uuid: facts.uuid,
    is_error: isError,
    // Successes carry the final answer. Execution errors carry the error text too: scripts that
    // read `result` (Claude Code puts "API Error: ..." there) find the status without `errors`.
    ...(isError ? (subtype === 'error_during_execution' && errors ? { result: errors[0] } : {}) : { result: terminal.lastAssistantText ?? '' }),
    num_turns: terminal.turnCount,
    terminal_reason: terminal.reason,
    stop_reason: facts.stopReason,
    duration_ms: Math.max(0, Math.round(facts.durationMs ?? terminal.durationMs)),
    duration_api_ms: Math.max(0, Math.round(facts.durationApiMs)),
    total_cost_usd: terminal.costUsd,
    usage: resultUsage(terminal.usage, Object.values(facts.modelUsage ?? {}).reduce((n, m) => n + m.webSearchRequests, 0)),
    modelUsage: { ...facts.modelUsage },
    permission_denials: facts.permissionDenials.map((d) => ({ ...d })),
    ...(structured?.status === 'provided' && !isError ? { structured_output: structured.value } : {}),
    ...(errors ? { errors } : {}),
  };
}
