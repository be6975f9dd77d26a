/**
 * `coldModel(...responses)`: a `deps.callModel` for marble tests. Call n plays `responses[n]`
 * (typically `cold()` replies) and records the request it was given, so a test can check what
 * the loop sent in each iteration and, with `subscriptionsOf(n)`, in which frames it listened.
 *
 * @example
 * ```ts
 * testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
 *   const first = replyMarble([{ type: 'tool_use', name: 'wait', input: {} }]);
 *   const second = replyMarble([{ type: 'text', text: 'done' }], { frame: 0 });
 *   const model = coldModel(cold(first.marbles, first.values), cold(second.marbles, second.values));
 *   expectObservable(agentLoop({ model: 'm', prompt: 'go', tools: [waitTool(5)], deps: { callModel: model.callModel } }).pipe(eventLetters()))
 *     .toBe('i--sa---(rutiaT|)');
 *   expectSubscriptions(model.subscriptionsOf(1)).toBe('8ms (^!)');
 * });
 * ```
 */
import type { Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import type { CallModel } from '../../loop/options.js';
import type { MessagesRequest } from '../../protocol/request.js';
import type { TransportOutput } from '../../transport/types.js';

/** What `expectSubscriptions` takes (rxjs does not export the type by name). */
export type SubscriptionLogs = Parameters<TestScheduler['expectSubscriptions']>[0];

/** The fake model of {@link coldModel}. */
export interface ColdModel {
  /** Pass as `deps.callModel`. */
  readonly callModel: CallModel;
  /** The request of each call so far, in order. */
  readonly requests: readonly MessagesRequest[];
  /** The subscription frames of the n-th response (for `expectSubscriptions`); [] for a response that is not a `cold()` one. */
  subscriptionsOf(n: number): SubscriptionLogs;
}

/** A model whose n-th call plays `responses[n]`; a call beyond the last response fails with a clear error. */
export function coldModel(...responses: readonly Observable<TransportOutput>[]): ColdModel {
  const requests: MessagesRequest[] = [];
  return {
    requests,
    callModel: (request) => {
      const n = requests.length;
      requests.push(request);
      const response = responses[n];
      if (response === undefined) {
        throw new Error(`coldModel: the loop made call #${n + 1}, but only ${responses.length} response(s) were given`);
      }
      return response;
    },
    subscriptionsOf: (n) => {
      const response = responses[n] as { readonly subscriptions?: SubscriptionLogs } | undefined;
      return response?.subscriptions ?? [];
    },
  };
}
