/**
 * Hook runs as Claude Code prints them in stream-json: `system/hook_started` when a hook begins,
 * `system/hook_response` with its output when it ends. Printed with `--include-hook-events`;
 * SessionStart hooks always (as the Agent SDK documents for Claude Code).
 */
import type { HookLifecycleEvent } from '../../hooks/hookLifecycle.js';
import type { OutputLine } from '../outputSchemas.js';

/** Whether a hook run is printed: every one with `--include-hook-events`, SessionStart's always. */
export function printsHookEvent(event: HookLifecycleEvent, includeHookEvents: boolean): boolean {
  return includeHookEvents || event.hookEvent === 'SessionStart';
}

export function hookLine(event: HookLifecycleEvent, uuid: string): OutputLine {
  const identity = { session_id: event.sessionId, uuid, hook_id: event.hookId, hook_name: event.hookName, hook_event: event.hookEvent };
  if (event.phase === 'started') return { type: 'system', subtype: 'hook_started', ...identity };
  return {
    type: 'system',
    subtype: 'hook_response',
    ...identity,
    output: event.stdout + event.stderr,
    stdout: event.stdout,
    stderr: event.stderr,
    ...(event.exitCode === undefined ? {} : { exit_code: event.exitCode }),
    outcome: event.outcome,
  };
}
