/**
 * Settings files, validated with zod and merged, lowest precedence first:
 *
 * | source    | files                                                            |
 * |-----------|------------------------------------------------------------------|
 * | `user`    | `~/.rxagent/settings.json`, `~/.claude/settings.json`            |
 * | `project` | `<cwd>/.rxagent/settings.json`, `<cwd>/.claude/settings.json`    |
 * | `local`   | `<cwd>/.claude/settings.local.json` (where the interactive view  |
 * |           | saves "don't ask again" rules, as Claude Code does)             |
 * | flag      | `--settings <file-or-json>` (always read)                        |
 * | policy    | `--managed-settings <file-or-json>` (the Agent SDK's             |
 * |           | `managedSettings`): restrictive keys only, see `policyLayer`     |
 *
 * as Claude Code orders them (`--setting-sources` picks which of the first three are read).
 * Hooks and permission rules are concatenated in that order; `model` and each `env` variable
 * come from the highest source that sets them, and so does `permissions.defaultMode` (unless
 * that source may not choose it: see `NOT_FROM`). Other top-level keys are allowed and ignored.
 * rxagent's own files and the flag must be valid (a clear error); a `.claude/` file written
 * for Claude Code that rxagent cannot read is one warning naming the file, and the rest loads.
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
import { PERMISSION_MODES } from '../permissions/modes.js';
import { compileToolMatcher } from './matcher.js';
import { HOOK_EVENTS, type HookEvent, type HookMatcherGroup, type HooksConfig } from './types.js';
import { issuesText } from '../util/issuesText.js';
import { lazySchema } from '../util/lazySchema.js';

/** `permissions.defaultMode` values Claude Code accepts (`manual` = `default`; `auto` has no classifier here). */
export const SETTINGS_DEFAULT_MODES = [...PERMISSION_MODES, 'manual', 'auto'] as const;
export type SettingsDefaultMode = (typeof SETTINGS_DEFAULT_MODES)[number];

/**
 * Modes a repository must not choose for whoever runs in it, and the sources they are not taken
 * from, as Claude Code filters them (the Agent SDK's `filterEscalatingDefaultMode` documents the
 * rule): `bypassPermissions` and `auto` not from project or local files, `acceptEdits` not from
 * the committed project files. When the file that decides the mode is such a source, the setting
 * is dropped as a whole (a lower file's mode does not step in): the run starts in `default`.
 */
const NOT_FROM: Partial<Record<SettingsDefaultMode, ReadonlySet<SettingSourceName>>> = {
  bypassPermissions: new Set(['project', 'local']),
  auto: new Set(['project', 'local']),
  acceptEdits: new Set(['project']),
};

// The parts below are built only inside settingsFileSchema's first call.
const commandHookSchema = () =>
  z.strictObject({
    type: z.literal('command'),
    command: z.string().min(1),
    timeout: z.number().positive().optional(),
  });

const matcherGroupSchema = () =>
  z.strictObject({
    matcher: z.string().optional(),
    hooks: z.array(commandHookSchema()),
  });

/** Claude Code's `sandbox` keys that rxagent honours (others are allowed and ignored). */
const sandboxSchema = () =>
  z.looseObject({
    enabled: z.boolean().optional(),
    network: z.looseObject({ allowedDomains: z.array(z.string()).optional() }).optional(),
    excludedCommands: z.array(z.string()).optional(),
  });

/** Built at the first settings text parsed: a run with no settings files never builds it (lazySchema says why). */
export const settingsFileSchema = lazySchema(() => {
  const ruleListSchema = z.array(z.string()).optional();
  return z.looseObject({
    sandbox: sandboxSchema().optional(),
    hooks: z.record(z.string(), z.array(matcherGroupSchema())).optional(),
    permissions: z
      .looseObject({ allow: ruleListSchema, deny: ruleListSchema, ask: ruleListSchema, defaultMode: z.enum(SETTINGS_DEFAULT_MODES).optional() })
      .optional(),
    model: z.string().min(1).optional(),
    env: z.record(z.string(), z.string()).optional(),
  });
});

/** Which settings files are read (`--setting-sources`); every one by default. */
export type SettingSourceName = 'user' | 'project' | 'local';

/** The merged settings of every file read: hooks, permission rules, and what was worth a warning. */
export interface Settings {
  readonly hooks: HooksConfig;
  readonly permissions: Required<{ [K in keyof PermissionRuleStrings]: readonly string[] }>;
  /** `sandbox` keys, merged key by key (a later file wins). */
  readonly sandbox: SandboxSettings;
  /** The files that were read, in merge order. */
  readonly files: readonly string[];
  /** The model the highest file names, if any (`--model` still wins). */
  readonly model?: string;
  /** `permissions.defaultMode` of the highest file that sets one, and that file (`--permission-mode` still wins). */
  readonly defaultMode?: { readonly mode: SettingsDefaultMode; readonly file: string; readonly source?: SettingSourceName };
  /** Environment variables for the session (a higher file wins per variable). */
  readonly env: Readonly<Record<string, string>>;
  /** Things worth telling the user that do not stop the run (e.g. an event we do not support). */
  readonly warnings: readonly string[];
}

export const EMPTY_SETTINGS: Settings = { hooks: {}, permissions: { allow: [], deny: [], ask: [] }, sandbox: {}, files: [], env: {}, warnings: [] };

/** Reads and validates one settings file. `undefined` when it does not exist and `optional`. */
export async function readSettingsFile(file: string, optional: boolean): Promise<Settings | undefined> {
  let text: string;
  try {
    text = await readSmallRegularFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && optional) return undefined;
    throw new ConfigurationError(`cannot read settings file ${file}: ${(error as Error).message}`);
  }
  return parseSettingsText(text, file);
}

/** Validates settings given as JSON text; `label` names them in errors (a file, or `--settings`). */
export function parseSettingsText(text: string, label: string): Settings {
  const file = label;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(`settings file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = settingsFileSchema().safeParse(json);
  if (!parsed.success) {
    throw new ConfigurationError(`settings file ${file} is invalid:\n- ${issuesText(parsed.error.issues, { whole: '(root)', separator: '\n- ' })}`);
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
  return {
    hooks,
    permissions: rules,
    sandbox,
    files: [file],
    ...(parsed.data.model === undefined ? {} : { model: parsed.data.model }),
    ...(permissions.defaultMode === undefined ? {} : { defaultMode: { mode: permissions.defaultMode, file } }),
    env: parsed.data.env ?? {},
    warnings,
  };
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
    ...pickModel(present),
    ...pickDefaultMode(present),
    env: Object.assign({}, ...present.map((s) => s.env)) as Record<string, string>,
    warnings: present.flatMap((s) => s.warnings),
  };
}

function pickModel(present: readonly Settings[]): { model?: string } {
  const model = [...present].reverse().find((s) => s.model !== undefined)?.model;
  return model === undefined ? {} : { model };
}

function pickDefaultMode(present: readonly Settings[]): Pick<Settings, 'defaultMode'> {
  const defaultMode = [...present].reverse().find((s) => s.defaultMode !== undefined)?.defaultMode;
  return defaultMode === undefined ? {} : { defaultMode };
}

/** Drops a `defaultMode` that comes from a source it may not come from, with a warning saying so. */
function withTrustedDefaultMode(settings: Settings): Settings {
  const chosen = settings.defaultMode;
  if (!chosen?.source || !NOT_FROM[chosen.mode]?.has(chosen.source)) return settings;
  const { defaultMode: _dropped, ...rest } = settings;
  const where = chosen.source === 'project' ? 'project settings' : 'local settings';
  return {
    ...rest,
    warnings: [
      ...settings.warnings,
      `${chosen.file}: permissions.defaultMode "${chosen.mode}" is not taken from ${where} (as in Claude Code); the run starts in default mode. Set it in ~/.claude/settings.json or --settings, or pass --permission-mode`,
    ],
  };
}

export interface LoadSettingsOptions {
  /** The workspace (its `.rxagent/` and `.claude/` settings are read). */
  readonly cwd: string;
  /** Default `os.homedir()`; injectable for tests. */
  readonly homeDir?: string;
  /** `--settings`: a file (must exist; relative to cwd) or inline JSON (text starting with `{`). */
  readonly settingsFile?: string;
  /** `--setting-sources`: default every source. */
  readonly sources?: readonly SettingSourceName[];
  /** `--managed-settings` (the Agent SDK's `managedSettings`): a file or inline JSON, as `settingsFile`. */
  readonly managedSettings?: string;
}

/** Loads the settings of the chosen sources and `--settings`, lowest precedence first, and merges them. */
export async function loadSettings(options: LoadSettingsOptions): Promise<Settings> {
  const home = options.homeDir ?? homedir();
  const cwd = resolve(options.cwd);
  const wanted = new Set<SettingSourceName>(options.sources ?? ['user', 'project', 'local']);
  const candidates: Array<{ file: string; claude: boolean; source: SettingSourceName }> = [
    { file: join(home, '.rxagent', 'settings.json'), claude: false, source: 'user' },
    { file: join(home, '.claude', 'settings.json'), claude: true, source: 'user' },
    { file: join(cwd, '.rxagent', 'settings.json'), claude: false, source: 'project' },
    { file: join(cwd, '.claude', 'settings.json'), claude: true, source: 'project' },
    { file: join(cwd, '.claude', 'settings.local.json'), claude: true, source: 'local' },
  ];
  const seen = new Set<string>();
  const chosen = candidates.filter((c) => wanted.has(c.source) && !seen.has(c.file) && (seen.add(c.file), true));
  const loaded = await Promise.all(chosen.map(async (c) => withSource(await (c.claude ? readClaudeSettingsFile(c.file) : readSettingsFile(c.file, true)), c.source)));
  const explicit = await flagLayer(options.settingsFile, cwd, '--settings');
  const managed = await flagLayer(options.managedSettings, cwd, '--managed-settings');
  return withTrustedDefaultMode(mergeSettings(...loaded, explicit, managed && policyLayer(managed)));
}

/** A layer given on the command line: inline JSON (text starting with `{`) or a file that must exist. */
async function flagLayer(given: string | undefined, cwd: string, flag: string): Promise<Settings | undefined> {
  if (given === undefined) return undefined;
  return given.trimStart().startsWith('{') ? parseSettingsText(given, `${flag} (inline JSON)`) : readSettingsFile(resolve(cwd, given), false);
}

/**
 * The policy tier a parent process supplies (`--managed-settings`). Claude Code takes it
 * restrictive-only: it may forbid, never widen, so of what rxagent reads from settings only the
 * `deny` and `ask` rules apply (above every other source). Everything else it sets is named in
 * one warning and left out, rather than silently widening (an `allow` rule, a mode, hooks,
 * env) or pretending to enforce a key rxagent does not have.
 */
function policyLayer(managed: Settings): Settings {
  const ignored = [
    ...(managed.permissions.allow.length > 0 ? ['permissions.allow'] : []),
    ...(Object.keys(managed.hooks).length > 0 ? ['hooks'] : []),
    ...(Object.keys(managed.env).length > 0 ? ['env'] : []),
    ...(Object.keys(managed.sandbox).length > 0 ? ['sandbox'] : []),
    ...(managed.model !== undefined ? ['model'] : []),
    ...(managed.defaultMode !== undefined ? ['permissions.defaultMode'] : []),
  ];
  return {
    ...EMPTY_SETTINGS,
    permissions: { allow: [], deny: managed.permissions.deny, ask: managed.permissions.ask },
    files: managed.files,
    warnings: [
      ...managed.warnings,
      ...(ignored.length > 0 ? [`--managed-settings: ${ignored.join(', ')} not applied (the policy tier only restricts: its permissions.deny and permissions.ask rules apply)`] : []),
    ],
  };
}

function withSource(settings: Settings | undefined, source: SettingSourceName): Settings | undefined {
  return settings?.defaultMode ? { ...settings, defaultMode: { ...settings.defaultMode, source } } : settings;
}

/**
 * A `.claude/` settings file, written for Claude Code: one that rxagent cannot read (bad JSON,
 * a hook type it does not run, ...) is a warning naming the file, not the end of the run.
 */
async function readClaudeSettingsFile(file: string): Promise<Settings | undefined> {
  try {
    return await readSettingsFile(file, true);
  } catch (error) {
    const why = (error as Error).message.split('\n').map((l) => l.trim()).filter((l) => l !== '').join(' ');
    return { ...EMPTY_SETTINGS, warnings: [`${why} (file ignored)`] };
  }
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
