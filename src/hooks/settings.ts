/**
 * Settings files: `~/.rxagent/settings.json`, `<workspace>/.rxagent/settings.json`,
 * `<workspace>/.claude/settings.local.json` (where the interactive view saves "don't ask again"
 * rules, as Claude Code does) and an explicit `--settings` file, validated with zod and merged (hooks and permission rules are
 * concatenated in that order). Other top-level keys are allowed and ignored.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigurationError } from '../errors.js';
import type { PermissionRuleStrings } from '../permissions/rules.js';
import type { SandboxSettings } from '../sandbox/types.js';
import { parseRule } from '../permissions/rules.js';
import { compileToolMatcher } from './matcher.js';
import { HOOK_EVENTS, type HookEvent, type HookMatcherGroup, type HooksConfig } from './types.js';

const commandHookSchema = z.strictObject({
  type: z.literal('command'),
  command: z.string().min(1),
  timeout: z.number().positive().optional(),
});

const matcherGroupSchema = z.strictObject({
  matcher: z.string().optional(),
  hooks: z.array(commandHookSchema),
});

const ruleListSchema = z.array(z.string()).optional();

/** Claude Code's `sandbox` keys that rxagent honours (others are allowed and ignored). */
const sandboxSchema = z.looseObject({
  enabled: z.boolean().optional(),
  network: z.looseObject({ allowedDomains: z.array(z.string()).optional() }).optional(),
  excludedCommands: z.array(z.string()).optional(),
});

export const settingsFileSchema = z.looseObject({
  sandbox: sandboxSchema.optional(),
  hooks: z.record(z.string(), z.array(matcherGroupSchema)).optional(),
  permissions: z
    .looseObject({ allow: ruleListSchema, deny: ruleListSchema, ask: ruleListSchema })
    .optional(),
});

/** The merged settings of every file read: hooks, permission rules, and what was worth a warning. */
export interface Settings {
  readonly hooks: HooksConfig;
  readonly permissions: Required<{ [K in keyof PermissionRuleStrings]: readonly string[] }>;
  /** `sandbox` keys, merged key by key (a later file wins). */
  readonly sandbox: SandboxSettings;
  /** The files that were read, in merge order. */
  readonly files: readonly string[];
  /** Things worth telling the user that do not stop the run (e.g. an event we do not support). */
  readonly warnings: readonly string[];
}

export const EMPTY_SETTINGS: Settings = { hooks: {}, permissions: { allow: [], deny: [], ask: [] }, sandbox: {}, files: [], warnings: [] };

/** Reads and validates one settings file. `undefined` when it does not exist and `optional`. */
export async function readSettingsFile(file: string, optional: boolean): Promise<Settings | undefined> {
  let text: string;
  try {
    text = await readSmallRegularFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && optional) return undefined;
    throw new ConfigurationError(`cannot read settings file ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(`settings file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = settingsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
    throw new ConfigurationError(`settings file ${file} is invalid:\n- ${issues.join('\n- ')}`);
  }
  const warnings: string[] = [];
  const hooks: { [E in HookEvent]?: HookMatcherGroup[] } = {};
  for (const [event, groups] of Object.entries(parsed.data.hooks ?? {})) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      warnings.push(`${file}: hook event ${event} is not supported; its hooks are ignored.`);
      continue;
    }
    for (const group of groups) {
      try {
        compileToolMatcher(group.matcher);
      } catch (error) {
        throw new ConfigurationError(`settings file ${file}: hooks.${event}: ${(error as Error).message}`);
      }
    }
    hooks[event as HookEvent] = groups.map((g) => ({
      ...(g.matcher === undefined ? {} : { matcher: g.matcher }),
      hooks: g.hooks.map((h) => ({ type: 'command' as const, command: h.command, ...(h.timeout === undefined ? {} : { timeout: h.timeout }) })),
    }));
  }
  const permissions = parsed.data.permissions ?? {};
  const rules = { allow: permissions.allow ?? [], deny: permissions.deny ?? [], ask: permissions.ask ?? [] };
  for (const [key, list] of Object.entries(rules)) {
    for (const rule of list) {
      try {
        parseRule(rule);
      } catch (error) {
        throw new ConfigurationError(`settings file ${file}: permissions.${key}: ${(error as Error).message}`);
      }
    }
  }
  const sb = parsed.data.sandbox;
  const sandbox: SandboxSettings = {
    ...(sb?.enabled === undefined ? {} : { enabled: sb.enabled }),
    ...(sb?.network?.allowedDomains === undefined ? {} : { network: { allowedDomains: sb.network.allowedDomains } }),
    ...(sb?.excludedCommands === undefined ? {} : { excludedCommands: sb.excludedCommands }),
  };
  return { hooks, permissions: rules, sandbox, files: [file], warnings };
}

/** Concatenates settings in order (hooks per event, rules per behaviour). */
export function mergeSettings(...all: ReadonlyArray<Settings | undefined>): Settings {
  const present = all.filter((s): s is Settings => s !== undefined);
  const hooks: { [E in HookEvent]?: HookMatcherGroup[] } = {};
  for (const event of HOOK_EVENTS) {
    const groups = present.flatMap((s) => s.hooks[event] ?? []);
    if (groups.length > 0) hooks[event] = groups;
  }
  return {
    hooks,
    permissions: {
      allow: present.flatMap((s) => s.permissions.allow),
      deny: present.flatMap((s) => s.permissions.deny),
      ask: present.flatMap((s) => s.permissions.ask),
    },
    sandbox: Object.assign({}, ...present.map((s) => s.sandbox)) as SandboxSettings,
    files: present.flatMap((s) => s.files),
    warnings: present.flatMap((s) => s.warnings),
  };
}

export interface LoadSettingsOptions {
  /** The workspace (its `.rxagent/settings.json` is read). */
  readonly cwd: string;
  /** Default `os.homedir()`; injectable for tests. */
  readonly homeDir?: string;
  /** `--settings <file>`: must exist. Relative to cwd. */
  readonly settingsFile?: string;
}

/** Loads user, workspace and explicit settings, in that order, and merges them. */
export async function loadSettings(options: LoadSettingsOptions): Promise<Settings> {
  const home = options.homeDir ?? homedir();
  const userFile = join(home, '.rxagent', 'settings.json');
  const workspaceFile = join(resolve(options.cwd), '.rxagent', 'settings.json');
  const localFile = join(resolve(options.cwd), '.claude', 'settings.local.json');
  const files = [userFile, ...(workspaceFile === userFile ? [] : [workspaceFile]), localFile];
  const loaded = await Promise.all(files.map((f) => readSettingsFile(f, true)));
  const explicit = options.settingsFile === undefined ? undefined : await readSettingsFile(resolve(options.cwd, options.settingsFile), false);
  return mergeSettings(...loaded, explicit);
}

/** Settings are small JSON files; anything bigger is a mistake (or `--settings /dev/zero`). */
export const MAX_SETTINGS_FILE_BYTES = 1 << 20;

/**
 * Reads a settings file, refusing what is not a regular file of sane size: `readFile` on
 * `/dev/zero` grows until memory runs out, and on a FIFO it waits forever.
 */
async function readSmallRegularFile(file: string): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > MAX_SETTINGS_FILE_BYTES) throw new Error(`${st.size} bytes is more than a settings file can be (${MAX_SETTINGS_FILE_BYTES})`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
