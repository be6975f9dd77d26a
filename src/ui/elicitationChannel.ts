/**
 * The answer channel for MCP servers' questions (form elicitation), as permissionChannel.ts is for
 * permission questions: plug `ask` into the MCP client (`onElicitation` of `connectMcpServers`,
 * `agentLoop`, `buildRun`); each question becomes an `elicitation_request` event on `events$`
 * and waits for `answer(requestId, …)`. A question the server withdraws (or whose call ends)
 * settles as `cancel`, so nothing is left waiting.
 */
import { Subject, type Observable } from 'rxjs';
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
  const prefix = options.idPrefix ?? 'elicit-';
  const events$ = new Subject<ElicitationEvent>();
  const waiting = new Map<string, (answer: McpElicitationAnswer) => void>();
  let counter = 0;

  const ask = (request: McpElicitation): Promise<McpElicitationAnswer> =>
    new Promise((resolve) => {
      const requestId = `${prefix}${++counter}`;
      const onAbort = () => settle({ action: 'cancel' });
      const settle = (answer: McpElicitationAnswer) => {
        if (!waiting.delete(requestId)) return;
        request.signal.removeEventListener('abort', onAbort);
        events$.next({ type: 'elicitation_settled', requestId, action: answer.action });
        resolve(answer);
      };
      waiting.set(requestId, settle);
      if (request.signal.aborted) return onAbort();
      request.signal.addEventListener('abort', onAbort, { once: true });
      events$.next({ type: 'elicitation_request', requestId, server: request.server, message: request.message, fields: request.fields });
    });

  return {
    ask,
    events$: events$.asObservable(),
    answer(requestId, answer) {
      const settle = waiting.get(requestId);
      if (!settle) return false;
      settle(answer);
      return true;
    },
    cancelAll() {
      for (const settle of [...waiting.values()]) settle({ action: 'cancel' });
    },
  };
}
