/**
 * The names of the permission modes, apart from what each mode decides (modes.ts): the command's
 * argument parser needs only these, and `rxagent --version` should not load the rule matchers.
 */

/** How much the user trusts the agent: what is decided for a call no rule matches. */
export type PermissionMode = 'default' | 'acceptEdits' | 'bypassPermissions' | 'plan' | 'dontAsk';

/** Every permission mode, as a runtime list (for validating `--permission-mode`). */
export const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk'];
