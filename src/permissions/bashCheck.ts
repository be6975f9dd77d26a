/**
 * What the permission check of a Bash command asks, as plain data, and the pure function that
 * answers it. The answer needs the shell parser (mvdan-sh), which is slow for long commands and
 * allocates heavily: it runs in a worker thread (bashCheckThread.ts), so the main thread's
 * event loop is never held by it. The worker and any caller run this same function, so moving
 * it off the main thread changes when the decision arrives, never what it is.
 */
import { classifyBashCommand } from '../tools/builtin/bashReadOnly.js';
import { commandNamesOf } from '../tools/builtin/shellParse.js';
import { assertNever } from '../util/assertNever.js';
import { decidePermission, type PermissionVerdict } from './decidePermission.js';
import { ruleMatches, type MatchContext } from './matchRule.js';
import type { PermissionMode } from './modes.js';
import type { PermissionRule, PermissionRuleSet } from './rules.js';
import type { PermissionDecision } from '../tools/hooks.js';

/** Facts about a command that depend on its text only (never on files or rules): safe to keep. */
export interface BashFacts {
  /** The read-only classification: such a command runs with the workspace mounted read-only. */
  readonly readOnly: boolean;
  /** Program names of every command in it (for `sandbox.excludedCommands`); undefined when it does not parse. */
  readonly commandNames: readonly string[] | undefined;
}

export type BashCheckRequest =
  /** The whole permission decision of one Bash call. */
  | {
      readonly kind: 'decide';
      readonly mode: PermissionMode;
      readonly rules: PermissionRuleSet;
      readonly command: string;
      readonly hookDecision?: PermissionDecision | undefined;
      readonly hookReason?: string | undefined;
      readonly ctx: MatchContext;
    }
  /** Only the facts (the Bash tool's sandbox access, when no decision was asked for this text). */
  | { readonly kind: 'facts'; readonly command: string }
  /** Whether any of these allow rules covers the command (the session's "don't ask again" rules). */
  | { readonly kind: 'allows'; readonly rules: readonly PermissionRule[]; readonly command: string; readonly ctx: MatchContext };

export interface BashCheckAnswers {
  readonly decide: { readonly verdict: PermissionVerdict; readonly facts: BashFacts };
  readonly facts: { readonly facts: BashFacts };
  readonly allows: { readonly allowed: boolean };
}

export type BashCheckAnswer<K extends BashCheckRequest['kind']> = BashCheckAnswers[K];

export function bashFactsOf(command: string): BashFacts {
  return { readOnly: classifyBashCommand(command).readOnly, commandNames: commandNamesOf(command) };
}

/** Answers one request. Pure apart from the file system reads of the path checks; never throws on any command. */
export function answerBashCheck<K extends BashCheckRequest['kind']>(request: BashCheckRequest & { readonly kind: K }): BashCheckAnswer<K>;
export function answerBashCheck(request: BashCheckRequest): BashCheckAnswers[BashCheckRequest['kind']] {
  switch (request.kind) {
    case 'decide': {
      const input = { command: request.command };
      const verdict = decidePermission(
        request.mode,
        request.rules,
        { toolName: 'Bash', input, hookDecision: request.hookDecision, hookReason: request.hookReason },
        request.ctx,
      );
      return { verdict, facts: bashFactsOf(request.command) };
    }
    case 'facts':
      return { facts: bashFactsOf(request.command) };
    case 'allows': {
      const input = { command: request.command };
      return { allowed: request.rules.some((rule) => ruleMatches(rule, 'allow', 'Bash', input, request.ctx)) };
    }
    default:
      return assertNever(request, 'Bash check request');
  }
}
