/**
 * The seams of one tool call's pipeline (SPEC §4 steps 6, 7 and 12): PreToolUse hooks, the
 * permission decision and PostToolUse hooks, as plain injected functions. `src/hooks/` builds
 * them from settings files and `src/permissions/` builds `canUseTool` from modes and rules; the
 * pipeline (`runToolCall`) only knows these shapes.
 *
 * Every function may answer synchronously or with a Promise. A synchronous answer keeps the
 * pipeline synchronous, which is what lets marble tests run whole batches in virtual time.
 * A function that throws (or rejects) fails closed: the call gets an error `tool_result` naming
 * the failing seam and the tool is not called.
 */
import type { ToolResultBlock } from '../protocol/content.js';
import type { SharedContext } from './types.js';

/** A permission verdict, from a PreToolUse hook or from `canUseTool`. */
export type PermissionDecision = 'allow' | 'deny' | 'ask';

/** Asks the loop to end after this batch (terminal `hook_stopped`), whatever the tools returned. */
export interface StopContinuation {
  readonly reason: string;
}

/** What a PreToolUse hook sees: the call about to run, after validation and before the permission check. */
export interface PreToolUseInput {
  readonly toolName: string;
  /** The input as validated so far (already rewritten by earlier hooks in the list). */
  readonly toolInput: unknown;
  readonly toolUseId: string;
  readonly shared: SharedContext;
  /**
   * Aborts when the call is cut off (unsubscribed, aborted, timed out): a hook running a process
   * should stop it. Optional only for compatibility; `runToolCall` always provides it.
   */
  readonly signal?: AbortSignal;
}

/**
 * What a PreToolUse hook may answer. `{}` (or `undefined`) means "no opinion, go on".
 * - `decision`: 'deny' refuses the call (error result with `reason`); 'allow' is passed to
 *   `canUseTool` as `hookDecision` (the permission layer may still refuse, e.g. a deny rule);
 *   'ask' asks for approval, which a non-interactive session turns into a denial; 'defer'
 *   postpones the call: in a non-interactive run whose response holds only this one tool call,
 *   the call is not run and the loop ends `tool_deferred` with the tool_use unanswered (the
 *   caller supplies its result when resuming). Elsewhere (interactive, or other calls in the
 *   same response, whose results could not be paired on resume) it is ignored with a warning.
 * - `updatedInput`: replaces the input; validated again against the input schema (step 8) and
 *   an invalid rewrite becomes a configuration error result: the tool is never called with it.
 * - `additionalContext`: text for the model, delivered next to the tool result.
 * - `stopContinuation`: the call still runs, but the loop ends after the batch.
 */
export interface PreToolUseResult {
  readonly decision?: PermissionDecision | 'defer';
  readonly reason?: string;
  readonly updatedInput?: Record<string, unknown>;
  readonly additionalContext?: string;
  readonly stopContinuation?: StopContinuation;
}

/** Hooks run in list order; each sees the input as rewritten by the ones before it. */
export type PreToolUseHook = (
  input: PreToolUseInput,
) => PreToolUseResult | undefined | void | Promise<PreToolUseResult | undefined | void>;

/** What a PostToolUse hook sees: the call and its result, before the model gets it. */
export interface PostToolUseInput {
  readonly toolName: string;
  /** The input the tool was called with (after any rewrite). */
  readonly toolInput: unknown;
  readonly toolUseId: string;
  /** The tool_result block built from `output` (after size limiting). */
  readonly result: ToolResultBlock;
  readonly output: unknown;
  /** The tool's structured result, when it gives one (Claude Code's `tool_response` shapes). */
  readonly structured?: unknown;
  /** As for PreToolUse: aborts when the call is cut off. */
  readonly signal?: AbortSignal;
}

/**
 * What a PostToolUse hook may answer.
 * - `updatedOutput`: replaces the output; it must pass the tool's output schema (step 13), else
 *   the original is kept and a note about the rejected rewrite is added as additional context.
 * - `block`: the result is turned into an error result carrying the hook's reason (the tool did
 *   run; its output is kept below the reason so the model knows what happened).
 * - `additionalContext`, `stopContinuation`: as for PreToolUse.
 */
export interface PostToolUseResult {
  readonly updatedOutput?: unknown;
  readonly additionalContext?: string;
  readonly stopContinuation?: StopContinuation;
  readonly block?: string;
}

/** Runs after a call; may rewrite or block the output the model sees, add context, or stop the loop. */
export type PostToolUseHook = (
  input: PostToolUseInput,
) => PostToolUseResult | undefined | void | Promise<PostToolUseResult | undefined | void>;

/** The hooks of every tool call, each list run in order. */
export interface ToolHooks {
  readonly preToolUse?: readonly PreToolUseHook[];
  readonly postToolUse?: readonly PostToolUseHook[];
}

/** What `canUseTool` receives besides the tool name and input. */
export interface CanUseToolContext {
  readonly toolUseId: string;
  readonly shared: SharedContext;
  /** Aborted when the call is cancelled: a pending approval prompt should close. */
  readonly signal: AbortSignal;
  /** The PreToolUse hooks' combined verdict, if any gave one ('deny' never reaches here). */
  readonly hookDecision: PermissionDecision | undefined;
  /** The reason the hook gave with its verdict. */
  readonly hookReason: string | undefined;
}

/**
 * The permission verdict.
 * - allow: the call goes on, with `updatedInput` if given (validated again, step 8).
 * - deny: error result carrying `message`; the tool is not called.
 * - ask: nobody could decide automatically. Interactive front ends resolve 'ask' themselves
 *   before answering; in the pipeline an 'ask' that reaches it is a denial, because a
 *   non-interactive session has no one to approve (the message says so).
 */
export type PermissionResult =
  | { readonly behavior: 'allow'; readonly updatedInput?: Record<string, unknown> }
  | { readonly behavior: 'deny'; readonly message: string }
  | { readonly behavior: 'ask'; readonly message?: string };

/** The permission decision of one call (step 7); `createPermissionPolicy` builds one from modes and rules. */
export type CanUseTool = (
  toolName: string,
  input: unknown,
  ctx: CanUseToolContext,
) => PermissionResult | Promise<PermissionResult>;

/** The denial text used when an 'ask' reaches a session with nobody to ask. */
export function askDeniedMessage(toolName: string, why: string | undefined): string {
  const detail = why ? ` (${why})` : '';
  return (
    `Using \`${toolName}\` needs the user's approval${detail}, and this session cannot ask for it. ` +
    'The call was not made. Continue without it or use a tool that does not need approval.'
  );
}
