/** The terminal and transition vocabulary of the loop (SPEC §3), with its runtime lists and guards. */

// ---------------------------------------------------------------------------------------------
// Terminal and transition reasons (SPEC §3)
// ---------------------------------------------------------------------------------------------

/** Every way a run can end (SPEC §3), as a runtime list so consumers can validate or enumerate them. */
export const TERMINAL_REASONS = [
  'completed',
  'max_turns',
  'hook_stopped',
  'stop_hook_prevented',
  'tool_deferred',
  'aborted_streaming',
  'aborted_tools',
  'blocking_limit',
  'rapid_refill_breaker',
  'prompt_too_long',
  'model_error',
  'api_error',
  'malformed_tool_use_exhausted',
  'budget_exhausted',
  'turn_setup_failed',
  /** The model declined (stop_reason `refusal`); `error.details` holds the API's `stop_details`. */
  'refusal',
] as const;
/** Why a run ended: the `reason` of its single `terminal` event. */
export type TerminalReason = (typeof TERMINAL_REASONS)[number];

/** Controlled stops: the loop ended on purpose (SPEC §3: the first four and `tool_deferred`). */
export type ControlledTerminalReason = 'completed' | 'max_turns' | 'hook_stopped' | 'stop_hook_prevented' | 'tool_deferred';
/** Cancelled stops: the caller's abort (or unsubscribe) cut the model stream or the tool batch. */
export type CancelledTerminalReason = 'aborted_streaming' | 'aborted_tools';
/** Every terminal reason that is neither controlled nor cancelled: the run failed (`terminal.error` says how). */
export type ErrorTerminalReason = Exclude<TerminalReason, ControlledTerminalReason | CancelledTerminalReason>;

const CONTROLLED: ReadonlySet<TerminalReason> = new Set<TerminalReason>([
  'completed',
  'max_turns',
  'hook_stopped',
  'stop_hook_prevented',
  'tool_deferred',
]);
const CANCELLED: ReadonlySet<TerminalReason> = new Set<TerminalReason>(['aborted_streaming', 'aborted_tools']);

/** True for a stop the loop made on purpose (a success for the command's exit status). */
export function isControlledTerminal(reason: TerminalReason): reason is ControlledTerminalReason {
  return CONTROLLED.has(reason);
}
/** True for a stop caused by the caller's abort. */
export function isCancelledTerminal(reason: TerminalReason): reason is CancelledTerminalReason {
  return CANCELLED.has(reason);
}
/** True for a failed run: anything neither controlled nor cancelled, so a new reason defaults to an error. */
export function isErrorTerminal(reason: TerminalReason): reason is ErrorTerminalReason {
  return !CONTROLLED.has(reason) && !CANCELLED.has(reason);
}

/** Every continue site of the loop (SPEC §3), as a runtime list. */
export const TRANSITION_REASONS = [
  'next_turn',
  'reactive_compact_retry',
  'max_output_tokens_recovery',
  'malformed_tool_use_retry',
  'thinking_only_nudge',
  'stop_hook_blocking',
  'token_budget_continuation',
  /** The API paused a long server-tool turn (`pause_turn`): its content goes back so it resumes. */
  'pause_turn_continuation',
] as const;
/** Why the loop started another iteration: the `reason` of a `transition` event. */
export type TransitionReason = (typeof TRANSITION_REASONS)[number];

/** Continue sites that start a new iteration of the same logical turn (`turnCount` unchanged). */
export function isRecoveryTransition(reason: TransitionReason): boolean {
  return reason !== 'next_turn' && reason !== 'stop_hook_blocking' && reason !== 'token_budget_continuation';
}
