/**
 * The hook events around the session rather than one tool call or turn, with Claude Code's
 * inputs and meanings:
 * - `SessionStart` (source `startup` / `resume` / `clear`): its `additionalContext` (or plain stdout) is
 *   context for the model;
 * - `SessionEnd` (reason): told the session is over; its answer changes nothing;
 * - `Notification`: told when rxagent needs the user (a permission question);
 * - `PermissionRequest`: runs where a permission question would be asked, and may answer it
 *   (`hookSpecificOutput.decision: {behavior: "allow" | "deny", updatedInput?, message?}`);
 *   the first hook that decides wins, a deny over an allow.
 * Hook failures are warnings, as everywhere.
 */
import type { PermissionAnswer } from '../permissions/createPermissionPolicy.js';
import type { HookInvoker } from './invokeHooks.js';

export interface SessionHookRunners {
  sessionStart(source: 'startup' | 'resume' | 'clear', model: string): Promise<{ readonly additionalContext?: string }>;
  sessionEnd(reason: 'clear' | 'logout' | 'prompt_input_exit' | 'other'): Promise<void>;
  notification(message: string, notificationType: string): Promise<void>;
  permissionRequest(request: {
    readonly toolName: string;
    readonly input: unknown;
    readonly toolUseId: string;
    readonly signal?: AbortSignal;
  }): Promise<PermissionAnswer | undefined>;
  /** Whether any PermissionRequest hook is configured (a run without one asks as before). */
  readonly answersPermissions: boolean;
}

export function createSessionHookRunners(invoker: HookInvoker): SessionHookRunners {
  const { specsFor, base, runAll, report } = invoker;
  return {
    sessionStart: async (source, model) => {
      const specs = specsFor('SessionStart');
      if (specs.length === 0) return {};
      const outcomes = await runAll(specs, { ...base('SessionStart'), hook_event_name: 'SessionStart', source, model });
      report(outcomes);
      const context = outcomes.flatMap((o) => (o.additionalContext ? [o.additionalContext] : [])).join('\n\n');
      return context === '' ? {} : { additionalContext: context };
    },
    sessionEnd: async (reason) => {
      const specs = specsFor('SessionEnd');
      if (specs.length > 0) report(await runAll(specs, { ...base('SessionEnd'), hook_event_name: 'SessionEnd', reason }));
    },
    notification: async (message, notificationType) => {
      const specs = specsFor('Notification');
      if (specs.length === 0) return;
      report(await runAll(specs, { ...base('Notification'), hook_event_name: 'Notification', message, notification_type: notificationType }));
    },
    permissionRequest: async (request) => {
      const specs = specsFor('PermissionRequest', request.toolName);
      if (specs.length === 0) return undefined;
      const input = {
        ...base('PermissionRequest'),
        hook_event_name: 'PermissionRequest' as const,
        tool_name: request.toolName,
        tool_input: request.input,
        tool_use_id: request.toolUseId,
      };
      const outcomes = await runAll(specs, input, request.signal);
      report(outcomes);
      const answers = outcomes.flatMap((o) => (o.permissionAnswer ? [o.permissionAnswer] : []));
      return answers.find((a) => a.behavior === 'deny') ?? answers[0];
    },
    answersPermissions: specsFor('PermissionRequest').length > 0,
  };
}
