/**
 * What the permission and elicitation channels share: questions that wait for an answer under
 * an id, announced on a hot `events$`, and settled exactly once — by an answer, by the asking
 * call's signal aborting (so nothing is left waiting), or by `settleAll` at shutdown.
 */
import { Subject, type Observable } from 'rxjs';

export interface QuestionChannelSpec<Q, A, O, E> {
  readonly idPrefix: string;
  /** The event that announces a question. */
  readonly requested: (requestId: string, question: Q) => E;
  /** The event that says how it was settled. */
  readonly settled: (requestId: string, outcome: O) => E;
  /** The answer (and outcome) of a question whose call was aborted before anyone answered. */
  readonly aborted: () => readonly [A, O];
}

export interface QuestionChannel<Q, A, O, E> {
  ask(question: Q): Promise<A>;
  readonly events$: Observable<E>;
  /** Settles a waiting question; false when none has this id (settled already, or unknown). */
  settle(requestId: string, answer: A, outcome: O): boolean;
  settleAll(answer: A, outcome: O): void;
}

export function createQuestionChannel<Q extends { readonly signal: AbortSignal }, A, O, E>(spec: QuestionChannelSpec<Q, A, O, E>): QuestionChannel<Q, A, O, E> {
  const events$ = new Subject<E>();
  const waiting = new Map<string, (answer: A, outcome: O) => void>();
  let counter = 0;

  const ask = (question: Q): Promise<A> =>
    new Promise((resolve) => {
      const requestId = `${spec.idPrefix}${++counter}`;
      const onAbort = () => settle(...spec.aborted());
      const settle = (answer: A, outcome: O) => {
        if (!waiting.delete(requestId)) return;
        question.signal.removeEventListener('abort', onAbort);
        events$.next(spec.settled(requestId, outcome));
        resolve(answer);
      };
      waiting.set(requestId, settle);
      if (question.signal.aborted) return onAbort();
      question.signal.addEventListener('abort', onAbort, { once: true });
      events$.next(spec.requested(requestId, question));
    });

  return {
    ask,
    events$: events$.asObservable(),
    settle(requestId, answer, outcome) {
      const settle = waiting.get(requestId);
      if (!settle) return false;
      settle(answer, outcome);
      return true;
    },
    settleAll(answer, outcome) {
      for (const settle of [...waiting.values()]) settle(answer, outcome);
    },
  };
}
