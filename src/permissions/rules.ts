/**
 * Permission rules: `Tool` or `Tool(content)`, e.g. `Read`, `Bash(npm test)`, `Bash(git diff:*)`,
 * `Edit(src/**)`, `Read(/abs/path/**)`, `Bash(*)`. Parsed once, matched per call.
 */
import { ConfigurationError } from '../errors.js';

/** What a matching rule decides; deny wins over ask, ask over allow. */
export type RuleBehavior = 'allow' | 'deny' | 'ask';

/** One parsed rule: the tool it names and the optional pattern in parentheses. */
export interface PermissionRule {
  /** The tool the rule names (`Edit` also covers Write; `Read` also covers Glob and Grep). */
  readonly toolName: string;
  /** The part in parentheses; absent for a rule about the whole tool. */
  readonly content?: string;
  /** The rule as written, for messages. */
  readonly text: string;
}

/** Rule strings per behaviour, as in settings files. */
export interface PermissionRuleStrings {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly ask?: readonly string[];
}

/** The parsed rules by behavior, checked deny first, then ask, then allow. */
export interface PermissionRuleSet {
  readonly allow: readonly PermissionRule[];
  readonly deny: readonly PermissionRule[];
  readonly ask: readonly PermissionRule[];
}

const TOOL_NAME = /^[A-Za-z0-9_*-]+$/;

/** Parses one rule. Throws ConfigurationError naming the rule when it is malformed. */
export function parseRule(text: string): PermissionRule {
  const trimmed = text.trim();
  const open = trimmed.indexOf('(');
  if (open === -1) {
    if (!TOOL_NAME.test(trimmed)) throw new ConfigurationError(`invalid permission rule ${JSON.stringify(text)}: expected Tool or Tool(pattern)`);
    return { toolName: trimmed, text: trimmed };
  }
  const toolName = trimmed.slice(0, open);
  if (!trimmed.endsWith(')') || !TOOL_NAME.test(toolName)) {
    throw new ConfigurationError(`invalid permission rule ${JSON.stringify(text)}: expected Tool or Tool(pattern)`);
  }
  const content = trimmed.slice(open + 1, -1).trim();
  return content === '' ? { toolName, text: toolName } : { toolName, content, text: trimmed };
}

/**
 * Splits an `--allowedTools` / `--disallowedTools` value into rule strings: commas or whitespace
 * separate rules, except inside parentheses (`Bash(git diff:*)` stays one rule).
 */
export function splitToolList(value: string): string[] {
  const rules: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of value) {
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (c === ',' || /\s/.test(c))) {
      if (current !== '') rules.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  if (depth !== 0) throw new ConfigurationError(`unbalanced parentheses in tool list ${JSON.stringify(value)}`);
  if (current !== '') rules.push(current);
  return rules;
}

/** Parses an `--allowedTools`-style value into rules. */
export function parseToolList(value: string): PermissionRule[] {
  return splitToolList(value).map(parseRule);
}

/** Parses rule strings per behaviour (settings files, CLI flags), concatenating several sources. */
export function parseRuleStrings(...sources: ReadonlyArray<PermissionRuleStrings | undefined>): PermissionRuleSet {
  const pick = (key: RuleBehavior) => sources.flatMap((s) => (s?.[key] ?? []).map(parseRule));
  return { allow: pick('allow'), deny: pick('deny'), ask: pick('ask') };
}
