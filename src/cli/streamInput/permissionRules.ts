/**
 * `list_permission_rules` (the SDK's `SDKControlListPermissionRulesResponse`): every rule the
 * session's permission policy holds, each with where it comes from, as Claude Code's
 * `/permissions` lists them. The settings files are read again per source, so each rule names
 * its own file's source (the run itself holds them merged); the flag layer is `--settings` and
 * the host's `apply_flag_settings`, `cliArg` is `--allowedTools` / `--disallowedTools`, and
 * `session` what the host granted during the session ("always allow").
 */
import { resolve } from 'node:path';
import { loadSettings, type SettingSourceName } from '../../hooks/settings.js';
import type { FlagRules } from '../buildRun.js';

type Behaviour = 'allow' | 'deny' | 'ask';
type Source = 'userSettings' | 'projectSettings' | 'localSettings' | 'flagSettings' | 'policySettings' | 'cliArg' | 'session';

interface RuleEntry {
  readonly behavior: Behaviour;
  readonly source: Source;
  readonly rule: string;
  readonly editability: 'persistent' | 'session' | 'readonly';
}

export interface PermissionRuleInputs {
  readonly cwd: string;
  readonly homeDir: string;
  /** `--settings` (a file or inline JSON). */
  readonly settingsFile?: string;
  /** `--managed-settings` (the policy tier: only its deny and ask rules apply). */
  readonly managedSettings?: string;
  /** `--setting-sources` (default: every source). */
  readonly sources?: readonly SettingSourceName[];
  readonly addDirs: readonly string[];
  readonly cliArg: { readonly allow: readonly string[]; readonly deny: readonly string[] };
  readonly flag: () => FlagRules;
  readonly session: () => FlagRules;
}

const SETTINGS_SOURCES: ReadonlyArray<readonly [SettingSourceName, Source]> = [
  ['user', 'userSettings'],
  ['project', 'projectSettings'],
  ['local', 'localSettings'],
];

const editabilityOf = (source: Source): RuleEntry['editability'] =>
  source === 'cliArg' || source === 'session' ? 'session' : source === 'flagSettings' || source === 'policySettings' ? 'readonly' : 'persistent';

function entries(source: Source, rules: Partial<Record<Behaviour, readonly string[]>>): RuleEntry[] {
  return (['allow', 'deny', 'ask'] as const).flatMap((behavior) => (rules[behavior] ?? []).map((rule) => ({ behavior, source, rule, editability: editabilityOf(source) })));
}

export async function permissionRulesState(inputs: PermissionRuleInputs): Promise<Record<string, unknown>> {
  const wanted = inputs.sources ?? ['user', 'project', 'local'];
  const rules: RuleEntry[] = [];
  for (const [name, source] of SETTINGS_SOURCES) {
    if (!wanted.includes(name)) continue;
    rules.push(...entries(source, (await loadSettings({ cwd: inputs.cwd, homeDir: inputs.homeDir, sources: [name] })).permissions));
  }
  if (inputs.settingsFile !== undefined) {
    rules.push(...entries('flagSettings', (await loadSettings({ cwd: inputs.cwd, homeDir: inputs.homeDir, sources: [], settingsFile: inputs.settingsFile })).permissions));
  }
  if (inputs.managedSettings !== undefined) {
    rules.push(...entries('policySettings', (await loadSettings({ cwd: inputs.cwd, homeDir: inputs.homeDir, sources: [], managedSettings: inputs.managedSettings })).permissions));
  }
  rules.push(...entries('flagSettings', inputs.flag()), ...entries('cliArg', inputs.cliArg), ...entries('session', inputs.session()));
  return {
    state: {
      rules,
      workspaceDirectories: inputs.addDirs.map((dir) => ({ path: resolve(inputs.cwd, dir), source: 'cliArg' })),
      originalCwd: inputs.cwd,
      managedOnly: false,
    },
  };
}
