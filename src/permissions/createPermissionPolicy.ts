/**
 * The permission policy (SPEC §4 step 7): rules, mode and hook verdicts folded into the
 * `CanUseTool` seam of the tool pipeline.
 *
 * Order: deny rule > plan mode's read-only denial > hook 'ask' / ask rule > hook 'allow' /
 * allow rule > the mode's default. An 'ask' is then resolved: by `ask` when the session is
 * interactive, otherwise (and always in `dontAsk`) it becomes a denial that tells the model it
 * lacks the permission. Workspace confinement is not decided here: the file tools enforce it in
 * every mode.
 */
import type { CanUseTool, CanUseToolContext, PermissionResult } from '../tools/hooks.js';
import { askDeniedMessage } from '../tools/hooks.js';
import type { MatchContext } from './matchRule.js';
import type { PermissionMode } from './modes.js';
import { parseRuleStrings, type PermissionRuleSet, type PermissionRuleStrings } from './rules.js';
import { decidePermission, type PermissionVerdict } from './decidePermission.js';
import { BashCheckFailed, sharedBashCheck, type BashChecker } from './bashCheckThread.js';
import { MAX_PARSED_COMMAND_CHARS } from '../tools/builtin/shellParse.js';
import { assertNever } from '../util/assertNever.js';

export { decidePermission, type DecideInput, type PermissionVerdict } from './decidePermission.js';

/** What an interactive `ask` callback is shown when a call needs approval. */
export interface PermissionRequest {
  readonly toolName: string;
  readonly input: unknown;
  /** Why approval is needed, for the prompt. */
  readonly reason: string;
  readonly toolUseId: string;
  /** Aborted when the call is cancelled: close the prompt. */
  readonly signal: AbortSignal;
}

/** The user's answer to a {@link PermissionRequest}. */
export type PermissionAnswer =
  | { readonly behavior: 'allow'; readonly updatedInput?: Record<string, unknown> }
  | { readonly behavior: 'deny'; readonly message?: string };

/** Options of {@link createPermissionPolicy}: the mode, the rules, and whom to ask. */
export interface PermissionPolicyOptions {
  readonly mode: PermissionMode;
  /** Parsed rules, or rule strings as in settings files. */
  readonly rules?: PermissionRuleSet | PermissionRuleStrings;
  /** Relative path rules (`Edit(src/**)`) are resolved against it. */
  readonly cwd: string;
  readonly homeDir?: string;
  /** Workspace roots (`--add-dir`, default `[cwd]`): read-only commands may auto-run only inside them. */
  readonly roots?: readonly string[];
  /** Whether someone can answer 'ask' (default false: 'ask' becomes a denial). */
  readonly interactive?: boolean;
  /** Asks the user; used only when `interactive` is true and the mode is not dontAsk. */
  readonly ask?: (request: PermissionRequest) => PermissionAnswer | Promise<PermissionAnswer>;
  /** Where Bash commands are checked (default: the process's worker thread, bashCheckThread.ts). */
  readonly bashCheck?: BashChecker;
}

function isRuleSet(rules: PermissionRuleSet | PermissionRuleStrings): rules is PermissionRuleSet {
  const first = rules.allow?.[0] ?? rules.deny?.[0] ?? rules.ask?.[0];
  return first !== undefined && typeof first === 'object';
}

/** Creates the `CanUseTool` seam from a permission mode, rules and an optional `ask` callback. */
export function createPermissionPolicy(options: PermissionPolicyOptions): CanUseTool {
  const given = options.rules ?? {};
  const rules: PermissionRuleSet = isRuleSet(given)
    ? { allow: given.allow ?? [], deny: given.deny ?? [], ask: given.ask ?? [] }
    : parseRuleStrings(given);
  const matchCtx: MatchContext = {
    cwd: options.cwd,
    ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
    ...(options.roots === undefined ? {} : { roots: options.roots }),
  };
  const canAsk = options.interactive === true && options.mode !== 'dontAsk' && options.ask !== undefined;

  const answer = (toolName: string, input: unknown, ctx: CanUseToolContext, verdict: PermissionVerdict): PermissionResult | Promise<PermissionResult> => {
    switch (verdict.behavior) {
      case 'allow':
        return { behavior: 'allow' };
      case 'deny':
        return {
          behavior: 'deny',
          message: `${verdict.reason}. Do not retry the same call; choose another approach, or ask the user to change the permission settings.`,
        };
      case 'ask': {
        if (!canAsk || !options.ask) {
          const why = options.mode === 'dontAsk' ? `${verdict.reason}; dontAsk mode refuses anything that would ask` : verdict.reason;
          return { behavior: 'deny', message: askDeniedMessage(toolName, why) };
        }
        const request: PermissionRequest = { toolName, input, reason: verdict.reason, toolUseId: ctx.toolUseId, signal: ctx.signal };
        return Promise.resolve(options.ask(request)).then(
          (answer): PermissionResult =>
            answer.behavior === 'allow'
              ? answer.updatedInput === undefined ? { behavior: 'allow' } : { behavior: 'allow', updatedInput: answer.updatedInput }
              : { behavior: 'deny', message: answer.message ?? 'The user declined this call. Do not retry it; ask the user how to proceed.' },
        );
      }
      default:
        return assertNever(verdict.behavior, 'permission verdict');
    }
  };

  return (toolName: string, input: unknown, ctx: CanUseToolContext): PermissionResult | Promise<PermissionResult> => {
    const hook = { hookDecision: ctx.hookDecision, hookReason: ctx.hookReason };
    const command = toolName === 'Bash' ? (input as { command?: unknown } | null)?.command : undefined;
    // A Bash command is parsed in the worker, whatever its size (bashCheckThread.ts says why);
    // one longer than the parser reads is refused by the parser's first line, so it is decided
    // here without being parsed at all.
    if (typeof command !== 'string' || command.length > MAX_PARSED_COMMAND_CHARS) {
      return answer(toolName, input, ctx, decidePermission(options.mode, rules, { toolName, input, ...hook }, matchCtx));
    }
    const checker = options.bashCheck ?? sharedBashCheck();
    return checker.check({ kind: 'decide', mode: options.mode, rules, command, ...hook, ctx: matchCtx }, ctx.signal).then(
      (checked) => answer(toolName, input, ctx, checked.verdict),
      (error: unknown): PermissionResult | Promise<PermissionResult> => {
        // No answer is never an allow: the command asks (and is refused where nobody can answer).
        if (error instanceof BashCheckFailed) return answer(toolName, input, ctx, { behavior: 'ask', reason: `${error.message}, so it cannot run unchecked` });
        if (ctx.signal.aborted) return { behavior: 'deny', message: 'The call was cancelled before its permission check finished.' };
        throw error;
      },
    );
  };
}
