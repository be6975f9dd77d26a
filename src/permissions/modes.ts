/** Permission modes and what each decides when no rule applies. */
import { bashPathsStayInside, type PathScope } from '../tools/builtin/bashPaths.js';
import { isReadOnlyBashCommand } from '../tools/builtin/bashReadOnly.js';
import { filePathsOf } from './matchRule.js';
import { isProtectedSegment } from '../sandbox/protectedDirs.js';
import { assertNever } from '../util/assertNever.js';

import type { PermissionMode } from './modeNames.js';
export { PERMISSION_MODES, type PermissionMode } from './modeNames.js';

const READ_TOOLS = new Set(['Read', 'Glob', 'Grep']);
const EDIT_TOOLS = new Set(['Write', 'Edit']);

/**
 * How a call counts for the modes: reading, editing files, a read-only shell command inside the
 * workspace, a read-only one that touches paths outside it (`cat ~/.ssh/id_rsa`), another shell
 * command, or unknown.
 */
export type CallKind = 'read' | 'edit' | 'edit_protected' | 'bash_read_only' | 'bash_read_outside' | 'bash' | 'other';

/*
 * Folders whose files decide what runs: git's config and hooks (a `core.fsmonitor` or textconv
 * line turns the auto-allowed `git status`/`git diff` into arbitrary commands), our own settings
 * and agents (hooks), and Claude Code's `.claude/` (its `settings.local.json` is trusted to
 * approve project MCP servers, which start outside the sandbox). acceptEdits does not cover
 * them: editing them asks. The same names, in any letter case, as the sandbox keeps read-only
 * (src/sandbox/protectedDirs.ts): on a case-insensitive file system `.GIT/config` is `.git/config`.
 */

/**
 * With `scope`, a read-only command counts as `bash_read_only` only when every path it names
 * stays inside the workspace roots; without it (no workspace known) it is never auto-allowed.
 */
export function callKindOf(toolName: string, input: unknown, scope?: PathScope): CallKind {
  if (READ_TOOLS.has(toolName)) return 'read';
  if (EDIT_TOOLS.has(toolName)) {
    const targets = scope === undefined ? undefined : filePathsOf(toolName, (input ?? {}) as Record<string, unknown>, scope);
    const protectedPath = targets?.some((t) => t.split(/[\\/]/).some(isProtectedSegment));
    return protectedPath ? 'edit_protected' : 'edit';
  }
  if (toolName === 'Bash') {
    const command = (input as { command?: unknown } | null)?.command;
    if (typeof command !== 'string' || !isReadOnlyBashCommand(command)) return 'bash';
    return scope !== undefined && bashPathsStayInside(command, scope).inside ? 'bash_read_only' : 'bash_read_outside';
  }
  return 'other';
}

export interface ModeVerdict {
  readonly behavior: 'allow' | 'deny' | 'ask';
  readonly reason: string;
}

/**
 * The mode's own answer. Read-only shell commands (as the conservative classifier sees them) are
 * allowed wherever reading is: they cannot change anything. Tools we know nothing about ask.
 */
export function modeVerdict(mode: PermissionMode, kind: CallKind): ModeVerdict {
  switch (mode) {
    case 'bypassPermissions':
      return { behavior: 'allow', reason: 'bypassPermissions mode allows every tool' };
    case 'plan':
      if (kind === 'read' || kind === 'bash_read_only') return { behavior: 'allow', reason: 'reading is allowed in plan mode' };
      if (kind === 'edit' || kind === 'edit_protected' || kind === 'bash') {
        return { behavior: 'deny', reason: 'plan mode is read-only: files may not be changed and only read-only commands may run' };
      }
      if (kind === 'bash_read_outside') return { behavior: 'ask', reason: 'this command reads outside the workspace' };
      return { behavior: 'ask', reason: 'this tool needs approval in plan mode' };
    case 'acceptEdits':
      if (kind === 'edit') return { behavior: 'allow', reason: 'acceptEdits mode allows file edits in the workspace' };
      return modeVerdict('default', kind);
    case 'default':
    case 'dontAsk':
      if (kind === 'read' || kind === 'bash_read_only') return { behavior: 'allow', reason: 'reading is allowed' };
      if (kind === 'bash_read_outside') return { behavior: 'ask', reason: 'this command reads outside the workspace' };
      if (kind === 'edit_protected') return { behavior: 'ask', reason: 'files in .git, .rxagent or .claude control what runs; editing them needs approval' };
      return { behavior: 'ask', reason: kind === 'edit' ? 'file edits need approval' : kind === 'bash' ? 'this command needs approval' : 'this tool needs approval' };
    default:
      return assertNever(mode, 'permission mode');
  }
}
