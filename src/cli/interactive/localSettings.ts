/**
 * Permission rules saved from the interactive view ("don't ask again", /permissions), and the
 * answers about a project's MCP servers (mcpApproval.ts), go where
 * Claude Code puts them: the workspace's `.claude/settings.local.json` (personal, not meant to be
 * committed), which the settings loader reads after `.rxagent/settings.json`. Other keys of the
 * file are kept as they were; a file that is not a JSON object is refused rather than replaced.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseRule, type RuleBehavior } from '../../permissions/rules.js';

export function localSettingsFile(cwd: string): string {
  return join(cwd, '.claude', 'settings.local.json');
}

export type Json = Record<string, unknown>;

function readObject(file: string): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${file} does not hold a JSON object`);
  return parsed as Json;
}

function rulesOf(settings: Json, behavior: RuleBehavior): string[] {
  const permissions = settings['permissions'];
  if (typeof permissions !== 'object' || permissions === null) return [];
  const list = (permissions as Json)[behavior];
  return Array.isArray(list) ? list.filter((r): r is string => typeof r === 'string') : [];
}

/** Rewrites the file with `change` applied to its object: written whole to a temp file, then renamed over it. */
export function updateLocalSettings(cwd: string, change: (settings: Json) => Json): void {
  update(localSettingsFile(cwd), change);
}

function update(file: string, change: (settings: Json) => Json): void {
  const next = change(readObject(file));
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`);
  renameSync(temp, file);
}

const withRules = (settings: Json, behavior: RuleBehavior, rules: string[]): Json => ({
  ...settings,
  permissions: { ...(typeof settings['permissions'] === 'object' && settings['permissions'] !== null ? (settings['permissions'] as Json) : {}), [behavior]: rules },
});

/** Adds `rule` to `permissions.<behavior>` (once). Throws on a malformed rule or an unreadable file. */
export function addLocalRule(cwd: string, behavior: RuleBehavior, rule: string): void {
  const text = parseRule(rule).text;
  update(localSettingsFile(cwd), (settings) => {
    const rules = rulesOf(settings, behavior);
    return rules.includes(text) ? settings : withRules(settings, behavior, [...rules, text]);
  });
}

/** Removes `rule` from every list of the file; whether it was there. */
export function removeLocalRule(cwd: string, rule: string): boolean {
  const text = parseRule(rule).text;
  let found = false;
  update(localSettingsFile(cwd), (settings) => {
    let next = settings;
    for (const behavior of ['allow', 'deny', 'ask'] as const) {
      const rules = rulesOf(next, behavior);
      if (!rules.includes(text)) continue;
      found = true;
      next = withRules(next, behavior, rules.filter((r) => r !== text));
    }
    return next;
  });
  return found;
}
