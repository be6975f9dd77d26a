/** Whether a permission rule applies to one tool call. */
import { homedir } from 'node:os';
import { isAbsolute, resolve, sep } from 'node:path';
import { kernelResolve, realOrNearest } from '../tools/builtin/bashPaths.js';
import { createGlobMatcher } from '../tools/builtin/globMatch.js';
import { effectiveCommandsOf } from './effectiveCommands.js';
import type { PermissionRule, RuleBehavior } from './rules.js';

/** Tools a rule name covers: editing rules cover every tool that writes files, reading rules every reader. */
const RULE_FAMILIES: Readonly<Record<string, readonly string[]>> = {
  Edit: ['Edit', 'Write'],
  Read: ['Read', 'Glob', 'Grep'],
};

export interface MatchContext {
  readonly cwd: string;
  readonly homeDir?: string;
  /** Workspace roots (default `[cwd]`): read-only commands touching paths outside them ask. */
  readonly roots?: readonly string[];
}

export function ruleCoversTool(rule: PermissionRule, toolName: string): boolean {
  if (rule.toolName === '*' || rule.toolName === toolName) return true;
  // `mcp__<server>` (and `mcp__<server>__*`) cover every tool of that MCP server.
  if (isMcpServerRule(rule.toolName, toolName)) return true;
  return RULE_FAMILIES[rule.toolName]?.includes(toolName) ?? false;
}

function isMcpServerRule(ruleName: string, toolName: string): boolean {
  if (!ruleName.startsWith('mcp__') || !toolName.startsWith('mcp__')) return false;
  const server = ruleName.endsWith('__*') ? ruleName.slice(0, -3) : ruleName;
  return !server.slice('mcp__'.length).includes('__') && toolName.startsWith(`${server}__`);
}

/**
 * Whether `rule`, used as `behavior`, applies. The behaviour matters for Bash: an allow rule must
 * cover every command of a compound line and never matches a line we cannot parse; a deny or ask
 * rule applies when it covers any part of it.
 */
export function ruleMatches(rule: PermissionRule, behavior: RuleBehavior, toolName: string, input: unknown, ctx: MatchContext): boolean {
  if (!ruleCoversTool(rule, toolName)) return false;
  if (rule.content === undefined || rule.content === '*') return true;
  const fields = (input ?? {}) as Record<string, unknown>;
  if (toolName === 'Bash') {
    const command = fields['command'];
    return typeof command === 'string' && bashRuleMatches(rule.content, behavior, command);
  }
  const targets = filePathsOf(toolName, fields, ctx);
  if (targets === undefined) return false;
  const matches = (target: string) => pathRuleMatches(rule.content!, target, ctx);
  // The path as written and where it really leads (symlinks, `link/..`) must both be covered by
  // an allow rule; either one is enough for a deny or ask rule, so `src/link-to-.git/config`
  // cannot slip past `Edit(.git/**)`.
  return behavior === 'allow' ? targets.every(matches) : targets.some(matches);
}

/**
 * The path a file tool acts on, absolute, as written (`~` expanded like the tools do) and as the
 * file system resolves it; Glob/Grep act on their directory (default cwd).
 */
export function filePathsOf(toolName: string, fields: Record<string, unknown>, ctx: MatchContext): string[] | undefined {
  const raw = toolName === 'Glob' || toolName === 'Grep' ? (fields['path'] ?? '.') : fields['file_path'];
  if (typeof raw !== 'string' || raw.includes('\0')) return undefined;
  const home = ctx.homeDir ?? homedir();
  const expanded = raw === '~' ? home : raw.startsWith('~/') ? resolve(home, raw.slice(2)) : raw;
  const written = resolve(ctx.cwd, expanded);
  const real = kernelResolve(ctx.cwd, expanded);
  return real === written ? [written] : [written, real];
}

/**
 * Whether a path rule covers what a shell read of `target` may reveal: `'match'` when the rule
 * matches it, `'below'` when `target` is a directory above what the rule protects (`grep -r x .`
 * may read `secrets/**` too), false otherwise.
 */
export function pathRuleCoversRead(pattern: string, target: string, ctx: MatchContext): 'match' | 'below' | false {
  if (pathRuleMatches(pattern, target, ctx)) return 'match';
  const home = ctx.homeDir ?? homedir();
  const t = target.split(sep).join('/').replace(/\/+$/, '');
  return [ctx.cwd, realOrNearest(resolve(ctx.cwd))].some((base) => {
    const abs = absoluteRulePattern(pattern, base, home);
    const fixed = abs.split('/').findIndex((segment) => /[*?[{]/.test(segment));
    const prefix = fixed === -1 ? abs : abs.split('/').slice(0, fixed).join('/');
    return prefix.startsWith(`${t}/`) || t === '';
  })
    ? 'below'
    : false;
}

function pathRuleMatches(pattern: string, target: string, ctx: MatchContext): boolean {
  const home = ctx.homeDir ?? homedir();
  const bases = [ctx.cwd, realOrNearest(resolve(ctx.cwd))];
  return bases.some((base) => createGlobMatcher(absoluteRulePattern(pattern, base, home))(target.split(sep).join('/')));
}

/** A rule's path pattern made absolute: relative to `base` (the cwd), `~/` to home, `/` separators. */
export function absoluteRulePattern(pattern: string, base: string, home: string): string {
  const abs = pattern.startsWith('~/') ? resolve(home, pattern.slice(2)) : isAbsolute(pattern) ? pattern : resolve(base, pattern);
  return abs.split(sep).join('/');
}

/** Stands for a word bash computes at run time: it never equals a word a rule spells out. */
const COMPUTED_WORD = '\u0000computed';

function bashRuleMatches(content: string, behavior: RuleBehavior, command: string): boolean {
  const whole = command.trim();
  const matchOne = compileBashPattern(content);
  if (matchOne.exact && whole === content) return true;
  const effective = effectiveCommandsOf(whole);
  const texts = effective.commands.map((words) => words.map((w) => w ?? COMPUTED_WORD).join(' '));
  if (behavior === 'allow') {
    // A prefix or wildcard allow must not let `git diff; rm -rf x`, `$(…)` or a computed
    // program ride along: every command the line runs must be covered, each one known.
    if (effective.dynamic !== undefined || effective.writesFiles === true || texts.length === 0) return false;
    return texts.every((text) => !text.includes(COMPUTED_WORD) && matchOne.test(text));
  }
  // Deny and ask: any command the line runs, after unwrapping (`env rm`, `/bin/rm`, `sh -c 'rm'`).
  return matchOne.test(whole) || texts.some((text) => matchOne.test(text));
}

/**
 * Why a Bash deny or ask rule cannot be checked against this command: its line runs a program
 * whose name is only known when it runs (or does not parse). Undefined when the rule can be checked.
 */
export function bashRuleUncheckable(rule: PermissionRule, toolName: string, input: unknown): string | undefined {
  if (toolName !== 'Bash' || rule.toolName !== 'Bash' || rule.content === undefined || rule.content === '*') return undefined;
  const command = (input as { command?: unknown } | null)?.command;
  if (typeof command !== 'string') return undefined;
  return effectiveCommandsOf(command.trim()).dynamic;
}

function compileBashPattern(content: string): { exact: boolean; test: (command: string) => boolean } {
  if (content.endsWith(':*')) {
    const prefix = content.slice(0, -2).trim();
    return { exact: false, test: (c) => c === prefix || c.startsWith(`${prefix} `) };
  }
  if (content.includes('*')) {
    const parts = content.split('*');
    return { exact: false, test: (c) => wildcardMatches(parts, c) };
  }
  return { exact: true, test: (c) => c === content };
}

/**
 * Whether `text` is the `*`-separated `parts` with anything (newlines too) in each gap. Not a
 * RegExp: `^.*a.*a.*b$` backtracks in O(n³) and the model writes the command it is matched
 * against (a 60 KB command under `Bash(*a*a*b)` froze the check). The first fit of each middle
 * part is always a right choice when every gap takes anything, so this is a few `indexOf`s.
 */
export function wildcardMatches(parts: readonly string[], text: string): boolean {
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (parts.length === 1) return text === first;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = text.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}
