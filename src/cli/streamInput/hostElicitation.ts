/**
 * An MCP server's form elicitation, asked of the SDK host as Claude Code asks it: a control
 * request `{subtype: "elicitation", mcp_server_name, message, mode: "form", requested_schema,
 * property_order}` that the Agent SDK hands to the program's `onElicitation` callback (and
 * answers `decline` itself when the program gave none). The answer is the MCP `ElicitResult`
 * (`{action, content?}`). An answer we cannot read, an error answer or no answer in time is a
 * `cancel` (the server learns nobody answered), with a warning saying why.
 */
import { z } from 'zod';
import type { McpElicitationHandler } from '../../mcp/elicitation.js';
import type { ControlChannel } from './controlChannel.js';

const answerSchema = z.looseObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
});

export function createHostElicitation(channel: ControlChannel, onWarning: (message: string) => void): McpElicitationHandler {
  return async (request) => {
    const properties = request.requestedSchema?.['properties'];
    let payload: Record<string, unknown>;
    try {
      payload = await channel.request(
        {
          subtype: 'elicitation',
          mcp_server_name: request.server,
          message: request.message,
          mode: 'form',
          ...(request.requestedSchema ? { requested_schema: request.requestedSchema } : {}),
          // The form's field order, for hosts whose JSON keeps no key order.
          ...(typeof properties === 'object' && properties !== null ? { property_order: Object.keys(properties) } : {}),
        },
        request.signal,
      );
    } catch (error) {
      if (!request.signal.aborted) onWarning(`MCP server "${request.server}" asked for input; the host did not answer (${(error as Error).message}), so it was cancelled`);
      return { action: 'cancel' };
    }
    const answer = answerSchema.safeParse(payload);
    if (!answer.success) {
      onWarning(`MCP server "${request.server}" asked for input; the host's answer was not an elicitation result, so it was cancelled`);
      return { action: 'cancel' };
    }
    return answer.data.action === 'accept' ? { action: 'accept', content: answer.data.content ?? {} } : { action: answer.data.action };
  };
}
