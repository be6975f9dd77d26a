/**
 * The answer channel for MCP servers' questions (form elicitation), as permissionChannel.ts is for
 * permission questions: plug `ask` into the MCP client (`onElicitation` of `connectMcpServers`,
 * `agentLoop`, `buildRun`); each question becomes an `elicitation_request` event on `events$`
 * and waits for `answer(requestId, …)`. A question the server withdraws (or whose call ends)
 * settles as `cancel`, so nothing is left waiting.
 */
import type { Observable } from 'rxjs';
import { createQuestionChannel } from './questionChannel.js';
import type { McpElicitation, McpElicitationAnswer } from '../mcp/elicitation.js';
import type { ElicitationEvent } from './types.js';

export interface ElicitationChannel {
  ask(request: McpElicitation): Promise<McpElicitationAnswer>;
  /** Hot: questions and their settlements as they happen. */
  readonly events$: Observable<ElicitationEvent>;
  /** Answers a waiting question; false when none has this id (answered, withdrawn, unknown). */
  answer(requestId: string, answer: McpElicitationAnswer): boolean;
  /** Cancels every waiting question (the host is shutting down). */
  cancelAll(): void;
}

export function createElicitationChannel(options: { readonly idPrefix?: string } = {}): ElicitationChannel {
  const questions = createQuestionChannel<McpElicitation, McpElicitationAnswer, McpElicitationAnswer['action'], ElicitationEvent>({
    idPrefix: options.idPrefix ?? 'elicit-',
    requested: (requestId, request) => ({ type: 'elicitation_request', requestId, server: request.server, message: request.message, fields: request.fields }),
    settled: (requestId, action) => ({ type: 'elicitation_settled', requestId, action }),
    aborted: () => [{ action: 'cancel' }, 'cancel'],
  });
  return {
    ask: questions.ask,
    events$: questions.events$,
    answer: (requestId, answer) => questions.settle(requestId, answer, answer.action),
    cancelAll: () => questions.settleAll({ action: 'cancel' }, 'cancel'),
  };
}
