/**
 * What an observer learns about each hook run: that it started, and how it ended (its stdout,
 * stderr, exit code and outcome). The command prints these as Claude Code's `hook_started` /
 * `hook_response` lines (`--include-hook-events`) and writes them to its debug log.
 */
import type { HookEvent, HookInput } from './types.js';

/** How one hook run ended, as Claude Code's `hook_response.outcome` names it. */
export type HookRunOutcome = 'success' | 'error' | 'cancelled';

/** What one finished hook run produced (a callback's answer is its JSON as `stdout`). */
export interface HookRunReport {
  readonly stdout: string;
  readonly stderr: string;
  /** Commands only; undefined for a callback or a command killed by a signal. */
  readonly exitCode?: number;
  readonly outcome: HookRunOutcome;
}

interface HookRunIdentity {
  readonly hookId: string;
  /** `<event>` or `<event>:<what it ran for>` (the tool, the session source, ...). */
  readonly hookName: string;
  readonly hookEvent: HookEvent;
  readonly sessionId: string;
}

export type HookLifecycleEvent =
  | (HookRunIdentity & { readonly phase: 'started' })
  | (HookRunIdentity & { readonly phase: 'response' } & HookRunReport);

/**
 * Claude Code's hook names: the event, then what the hook ran for (the tool of a tool event,
 * the source of SessionStart, the reason of SessionEnd, ...); the bare event for the others.
 */
export function hookNameOf(input: HookInput): string {
  const qualifier = qualifierOf(input);
  return qualifier === undefined ? input.hook_event_name : `${input.hook_event_name}:${qualifier}`;
}

function qualifierOf(input: HookInput): string | undefined {
  switch (input.hook_event_name) {
    case 'PreToolUse':
    case 'PostToolUse':
    case 'PermissionRequest':
      return input.tool_name;
    case 'SessionStart':
      return input.source;
    case 'SessionEnd':
      return input.reason;
    case 'Notification':
      return input.notification_type;
    case 'PreCompact':
      return input.trigger;
    case 'SubagentStart':
    case 'SubagentStop':
      return input.agent_type;
    case 'PostToolBatch':
    case 'Stop':
    case 'UserPromptSubmit':
      return undefined;
  }
}
