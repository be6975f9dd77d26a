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
import type { CanUseTool, CanUseToolContext, PermissionDecision, PermissionResult } from '../tools/hooks.js';
import { askDeniedMessage } from '../tools/hooks.js';
import { bashReadTargets } from '../tools/builtin/bashPaths.js';
import { bashRuleUncheckable, pathRuleCoversRead, ruleMatches, type MatchContext } from './matchRule.js';
import { callKindOf, modeVerdict, type PermissionMode } from './modes.js';
import { parseRuleStrings, type PermissionRule, type PermissionRuleSet, type PermissionRuleStrings } from './rules.js';
import { assertNever } from '../util/assertNever.js';

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
}

/** The decision before any 'ask' is resolved, with the reason and the rule that decided, if any. */
export interface PermissionVerdict {
  readonly behavior: PermissionDecision;
  readonly reason: string;
  readonly rule?: PermissionRule;
}

export interface DecideInput {
  readonly toolName: string;
  readonly input: unknown;
  readonly hookDecision?: PermissionDecision | undefined;
  readonly hookReason?: string | undefined;
}

/** The pure part of the policy, exported for front ends that want to show why. */
export function decidePermission(
  mode: PermissionMode,
  rules: PermissionRuleSet,
  call: DecideInput,
  ctx: MatchContext,
): PermissionVerdict {
  const find = (behavior: 'allow' | 'deny' | 'ask') =>
    rules[behavior].find((rule) => ruleMatches(rule, behavior, call.toolName, call.input, ctx));
  const denyRule = find('deny');
  if (denyRule) return { behavior: 'deny', reason: `the deny rule \`${denyRule.text}\` forbids it`, rule: denyRule };
  if (call.hookDecision === 'deny') return { behavior: 'deny', reason: call.hookReason ?? 'a PreToolUse hook denied it' };
  const kind = callKindOf(call.toolName, call.input, ctx);
  // A shell read must not get around a Read rule: `cat secrets/key` when `Read(secrets/**)` is
  // denied is denied too; `grep -r x .`, which may read them among others, asks.
  const shellRead = (behavior: 'deny' | 'ask'): { rule: PermissionRule; direct: boolean } | undefined => {
    if (kind !== 'bash_read_only' && kind !== 'bash_read_outside') return undefined;
    const candidates = rules[behavior].filter((rule) => rule.toolName === 'Read' && rule.content !== undefined);
    if (candidates.length === 0) return undefined;
    const targets = bashReadTargets((call.input as { command: string }).command, ctx) ?? [];
    let below: PermissionRule | undefined;
    for (const rule of candidates) {
      for (const target of targets) {
        const covered = pathRuleCoversRead(rule.content!, target, ctx);
        if (covered === 'match') return { rule, direct: true };
        if (covered === 'below') below ??= rule;
      }
    }
    return below ? { rule: below, direct: false } : undefined;
  };
  const shellDeny = shellRead('deny');
  if (shellDeny?.direct) {
    return { behavior: 'deny', reason: `the deny rule \`${shellDeny.rule.text}\` forbids reading those files, also from the shell`, rule: shellDeny.rule };
  }
  const byMode = modeVerdict(mode, kind);
  if (mode === 'plan' && byMode.behavior === 'deny') return byMode;
  // `$cmd x` or `sh script.sh` could be `rm`: a Bash deny or ask rule that cannot be checked asks, in every mode.
  for (const rule of [...rules.deny, ...rules.ask]) {
    const why = bashRuleUncheckable(rule, call.toolName, call.input);
    if (why !== undefined) return { behavior: 'ask', reason: `the rule \`${rule.text}\` cannot be checked against this command (${why})`, rule };
  }
  if (call.hookDecision === 'ask') return { behavior: 'ask', reason: call.hookReason ?? 'a PreToolUse hook asked for approval' };
  const askRule = find('ask') ?? shellRead('ask')?.rule;
  if (askRule) return { behavior: 'ask', reason: `the rule \`${askRule.text}\` asks for approval`, rule: askRule };
  if (shellDeny) {
    return { behavior: 'ask', reason: `this command may read files the deny rule \`${shellDeny.rule.text}\` protects`, rule: shellDeny.rule };
  }
  if (call.hookDecision === 'allow') return { behavior: 'allow', reason: call.hookReason ?? 'a PreToolUse hook allowed it' };
  const allowRule = find('allow');
  if (allowRule) return { behavior: 'allow', reason: `allowed by the rule \`${allowRule.text}\``, rule: allowRule };
  return byMode;
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

  return (toolName: string, input: unknown, ctx: CanUseToolContext): PermissionResult | Promise<PermissionResult> => {
    const verdict = decidePermission(options.mode, rules, { toolName, input, hookDecision: ctx.hookDecision, hookReason: ctx.hookReason }, matchCtx);
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
}
