/**
 * The answer channel for permission questions: plug `ask` into the permission policy (the `ask`
 * of `createPermissionPolicy` / `buildRun`); each question becomes a `permission_request` event
 * on `events$` and waits for `answer(requestId, ...)`. A call cancelled meanwhile (its signal
 * aborts) settles as `cancelled` and is answered 'deny' for the loop, so no question is left
 * hanging and every tool_use still gets its one result.
 */
import { Subject, type Observable } from 'rxjs';
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
  const prefix = options.idPrefix ?? 'perm-';
  const events$ = new Subject<PermissionEvent>();
  const waiting = new Map<string, (answer: PermissionAnswer, settled: 'allow' | 'deny' | 'cancelled') => void>();
  let counter = 0;

  const ask = (request: PermissionRequest): Promise<PermissionAnswer> =>
    new Promise((resolve) => {
      const requestId = `${prefix}${++counter}`;
      const onAbort = () => settle({ behavior: 'deny', message: 'The call was cancelled before the user answered.' }, 'cancelled');
      const settle = (answer: PermissionAnswer, behavior: 'allow' | 'deny' | 'cancelled') => {
        if (!waiting.delete(requestId)) return;
        request.signal.removeEventListener('abort', onAbort);
        events$.next({ type: 'permission_settled', requestId, behavior });
        resolve(answer);
      };
      waiting.set(requestId, settle);
      if (request.signal.aborted) return onAbort();
      request.signal.addEventListener('abort', onAbort, { once: true });
      events$.next({
        type: 'permission_request',
        requestId,
        toolUseId: request.toolUseId,
        toolName: request.toolName,
        input: request.input,
        reason: request.reason,
      });
    });

  return {
    ask,
    events$: events$.asObservable(),
    answer(requestId, answer) {
      const settle = waiting.get(requestId);
      if (!settle) return false;
      settle(answer, answer.behavior);
      return true;
    },
    denyAll(message) {
      for (const settle of [...waiting.values()]) settle({ behavior: 'deny', message }, 'cancelled');
    },
  };
}
