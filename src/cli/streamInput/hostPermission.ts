/**
 * `--permission-prompt-tool stdio`: a call that needs approval is asked of the host as a
 * `can_use_tool` control request (the SDK's `canUseTool` callback). The host's `allow` may
 * rewrite the input (`updatedInput`) and add rules for the session (`updatedPermissions`);
 * its `deny` carries the message the model sees and may `interrupt` the turn. No answer in
 * time, an error answer, or one we cannot read: the call is refused with a message saying why.
 */
import { z } from 'zod';
import type { PermissionAnswer, PermissionRequest } from '../../permissions/createPermissionPolicy.js';
import type { ControlChannel } from './controlChannel.js';

const ruleValueSchema = z.looseObject({ toolName: z.string(), ruleContent: z.string().optional() });

/** The subset of the SDK's `PermissionUpdate` rxagent applies: rules added for this session. */
const permissionUpdateSchema = z.looseObject({
  type: z.string(),
  rules: z.array(ruleValueSchema).optional(),
  behavior: z.enum(['allow', 'deny', 'ask']).optional(),
  mode: z.string().optional(),
});

const answerSchema = z.union([
  z.looseObject({
    behavior: z.literal('allow'),
    updatedInput: z.record(z.string(), z.unknown()).optional(),
    updatedPermissions: z.array(permissionUpdateSchema).optional(),
  }),
  z.looseObject({ behavior: z.literal('deny'), message: z.string().optional(), interrupt: z.boolean().optional() }),
]);

export type PermissionUpdate = z.infer<typeof permissionUpdateSchema>;

export interface HostPermissionOptions {
  readonly channel: ControlChannel;
  /** The host denied with `interrupt: true`: end the running turn. */
  readonly onInterrupt: () => void;
  /** The host's `updatedPermissions` on an allow (rules for the rest of the session, a mode change). */
  readonly onPermissionUpdates: (updates: readonly PermissionUpdate[]) => void;
}

/** A rule text as in settings files: `Tool` or `Tool(content)`. */
export function ruleText(rule: { toolName: string; ruleContent?: string | undefined }): string {
  return rule.ruleContent === undefined || rule.ruleContent === '' ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`;
}

/** What "always allow" would mean for this call: the exact command for Bash, the tool otherwise. */
export function permissionSuggestions(toolName: string, input: unknown): Array<Record<string, unknown>> {
  const command = toolName === 'Bash' && typeof (input as { command?: unknown })?.command === 'string' ? (input as { command: string }).command : undefined;
  return [
    {
      type: 'addRules',
      rules: [command === undefined ? { toolName } : { toolName, ruleContent: command }],
      behavior: 'allow',
      destination: 'session',
    },
  ];
}

export function createHostPermissionAsk(options: HostPermissionOptions): (request: PermissionRequest) => Promise<PermissionAnswer> {
  return async (request) => {
    let payload: Record<string, unknown>;
    try {
      payload = await options.channel.request(
        {
          subtype: 'can_use_tool',
          tool_name: request.toolName,
          input: (request.input ?? {}) as Record<string, unknown>,
          permission_suggestions: permissionSuggestions(request.toolName, request.input),
          decision_reason: request.reason,
          tool_use_id: request.toolUseId,
        },
        request.signal,
      );
    } catch (error) {
      return { behavior: 'deny', message: `Permission to use ${request.toolName} was not granted: ${(error as Error).message}.` };
    }
    const answer = answerSchema.safeParse(payload);
    if (!answer.success) {
      return { behavior: 'deny', message: `Permission to use ${request.toolName} was not granted: the host's answer was not a permission result.` };
    }
    if (answer.data.behavior === 'deny') {
      if (answer.data.interrupt === true) options.onInterrupt();
      return { behavior: 'deny', message: answer.data.message ?? `The user denied ${request.toolName}.` };
    }
    if (answer.data.updatedPermissions) options.onPermissionUpdates(answer.data.updatedPermissions);
    return answer.data.updatedInput === undefined ? { behavior: 'allow' } : { behavior: 'allow', updatedInput: answer.data.updatedInput };
  };
}
