/**
 * The answer channel for permission questions: plug `ask` into the permission policy (the `ask`
 * of `createPermissionPolicy` / `buildRun`); each question becomes a `permission_request` event
 * on `events$` and waits for `answer(requestId, ...)`. A call cancelled meanwhile (its signal
 * aborts) settles as `cancelled` and is answered 'deny' for the loop, so no question is left
 * hanging and every tool_use still gets its one result.
 */
import type { Observable } from 'rxjs';
import { createQuestionChannel } from './questionChannel.js';
import type { PermissionAnswer, PermissionRequest } from '../permissions/createPermissionPolicy.js';
import type { PermissionEvent } from './types.js';

export interface PermissionChannel {
  ask(request: PermissionRequest): Promise<PermissionAnswer>;
  /** Hot: questions and their settlements as they happen. */
  readonly events$: Observable<PermissionEvent>;
  /** Answers a waiting question; false when no question has this id (answered, cancelled, unknown). */
  answer(requestId: string, answer: PermissionAnswer): boolean;
  /** Denies every waiting question (the host is shutting down). */
  denyAll(message: string): void;
}

export function createPermissionChannel(options: { readonly idPrefix?: string } = {}): PermissionChannel {
  const questions = createQuestionChannel<PermissionRequest, PermissionAnswer, 'allow' | 'deny' | 'cancelled', PermissionEvent>({
    idPrefix: options.idPrefix ?? 'perm-',
    requested: (requestId, request) => ({
      type: 'permission_request',
      requestId,
      toolUseId: request.toolUseId,
      toolName: request.toolName,
      input: request.input,
      reason: request.reason,
    }),
    settled: (requestId, behavior) => ({ type: 'permission_settled', requestId, behavior }),
    aborted: () => [{ behavior: 'deny', message: 'The call was cancelled before the user answered.' }, 'cancelled'],
  });
  return {
    ask: questions.ask,
    events$: questions.events$,
    answer: (requestId, answer) => questions.settle(requestId, answer, answer.behavior),
    denyAll: (message) => questions.settleAll({ behavior: 'deny', message }, 'cancelled'),
  };
}
