/**
 * The pure permission decision (SPEC §4 step 7) of one call, before any 'ask' is resolved.
 *
 * Order: deny rule > plan mode's read-only denial > hook 'ask' / ask rule > hook 'allow' /
 * allow rule > the mode's default. For Bash it reads the command with the shell parser, which
 * is why `createPermissionPolicy` runs it for Bash in a worker thread (bashCheckThread.ts).
 */
import type { PermissionDecision } from '../tools/hooks.js';
import { bashReadTargets } from '../tools/builtin/bashPaths.js';
import { bashRuleUncheckable, pathRuleCoversRead, ruleMatches, type MatchContext } from './matchRule.js';
import { callKindOf, modeVerdict, type PermissionMode } from './modes.js';
import type { PermissionRule, PermissionRuleSet } from './rules.js';

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
