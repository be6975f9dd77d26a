/**
 * The mode a run starts in, in Claude Code's order: `--permission-mode` (or
 * `--dangerously-skip-permissions`), then `--agent`'s definition, then the highest settings file's
 * `permissions.defaultMode` (project and local files cannot choose `bypassPermissions`/`auto`:
 * `loadSettings` drops those), then `default`. Expressed as the options the run would have had
 * with the flag, so everything downstream (init line, hooks' `permission_mode`, the policy) reads
 * one value.
 */
import type { Settings } from '../hooks/settings.js';
import { MODE_ALIASES, type CliOptions } from './args.js';

export function withSettingsPermissionMode(options: CliOptions, defaultMode: Settings['defaultMode']): CliOptions {
  if (options.permissionModeGiven || defaultMode === undefined) return options;
  const alias = MODE_ALIASES[defaultMode.mode];
  return {
    ...options,
    permissionMode: alias ?? (defaultMode.mode as CliOptions['permissionMode']),
    permissionModeGiven: true,
    permissionModeAlias: alias === undefined ? undefined : defaultMode.mode,
  };
}
