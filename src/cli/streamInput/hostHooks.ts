/**
 * Hooks the host registered in `initialize` (`hooks: { <Event>: [{ matcher, hookCallbackIds,
 * timeout }] }`, the SDK's `hooks` option) become in-process callback hooks: when one fires, a
 * `hook_callback` control request carries its callback id and the hook input to the host, and
 * the host's answer is read exactly like a command hook's JSON (`interpretJSON`). A host that
 * does not answer in time, or answers with an error, is a non-blocking hook failure (a warning),
 * as for a command hook that crashes.
 */
import { z } from 'zod';
import { HOOK_EVENTS, type HookEvent, type HookJSONOutput, type HookMatcherGroup, type HooksConfig } from '../../hooks/types.js';
import type { ControlChannel } from './controlChannel.js';

export const hostHookMatcherSchema = z.looseObject({
  matcher: z.string().optional(),
  hookCallbackIds: z.array(z.string()),
  /** Seconds, as in settings files. */
  timeout: z.number().positive().optional(),
});

export const hostHooksSchema = z.record(z.string(), z.array(hostHookMatcherSchema));

export interface HostHooks {
  readonly hooks: HooksConfig;
  /** Events the host registered that rxagent does not fire. */
  readonly unsupported: readonly string[];
}

export function hostHooksConfig(registered: z.infer<typeof hostHooksSchema>, channel: ControlChannel): HostHooks {
  const hooks: { [E in HookEvent]?: HookMatcherGroup[] } = {};
  const unsupported: string[] = [];
  for (const [event, matchers] of Object.entries(registered)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      unsupported.push(event);
      continue;
    }
    hooks[event as HookEvent] = matchers.map((m) => ({
      ...(m.matcher === undefined ? {} : { matcher: m.matcher }),
      hooks: m.hookCallbackIds.map((id) => ({
        type: 'callback' as const,
        name: `host callback ${id}`,
        ...(m.timeout === undefined ? {} : { timeout: m.timeout }),
        callback: async (input, ctx) => {
          const toolUseId = (input as { tool_use_id?: unknown }).tool_use_id;
          const body = { subtype: 'hook_callback', callback_id: id, input, ...(typeof toolUseId === 'string' ? { tool_use_id: toolUseId } : {}) };
          // SessionEnd fires when the host has closed stdin: it is told, without waiting for an answer that cannot come.
          const answer = await (event === 'SessionEnd' ? channel.tell(body, ctx.signal) : channel.request(body, ctx.signal));
          return answer as HookJSONOutput;
        },
      })),
    }));
  }
  return { hooks, unsupported };
}
