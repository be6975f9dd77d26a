/**
 * Hooks as effects inside the decision stream: a `run_stop_hook` / `run_post_tool_batch`
 * decision asks its hook (through `fromMaybeAsync`, so a marble spec can draw its timing) and
 * comes back as the pure `decideAfter*` of the answer. Everything else passes as it is.
 */
import { catchError, defer, map, of, take, type Observable } from 'rxjs';
import { fromMaybeAsync, type MaybeAsync } from '../../operators/internal/fromMaybeAsync.js';
import type { TextBlock } from '../protocol/content.js';
import { batchOf } from './decideAttempt.js';
import { decideAfterStopHook } from './decideNoTools.js';
import { decideAfterPostToolBatch } from './decideWithTools.js';
import type { Decision } from './decision.js';
import type { SettledDecision } from './finish.js';
import type { Attempt } from './foldAttempt.js';
import type { RunContext } from './runContext.js';
import type { HookDecision } from './seams.js';

/**
 * @param absorb Takes the queued input (an effect: the commands become `started`); called only
 *   when a turn goes on with the tool results, so input waits in the queue otherwise.
 */
export function resolveHooks(ctx: RunContext, attempt: Attempt, decision: Decision, absorb: () => readonly TextBlock[]): Observable<SettledDecision> {
  const state = attempt.state;
  const message = attempt.message;
  const uuid = () => attempt.messageUuid ?? ctx.newId();
  const hooks = ctx.options.hooks;
  if (decision.type === 'run_stop_hook' && hooks?.stop && message) {
    const stop = hooks.stop;
    const input = { chainId: state.chainId, depth: state.depth, messages: state.messages, lastAssistantMessage: message, stopHookActive: state.stopHookActive, signal: ctx.signal };
    return ask(() => stop(input)).pipe(map((hook) => settled(decideAfterStopHook(state, message, uuid(), hook, ctx.decideConfig))));
  }
  if (decision.type === 'run_post_tool_batch' && hooks?.postToolBatch && message) {
    const post = hooks.postToolBatch;
    const batch = batchOf(attempt);
    const input = { chainId: state.chainId, depth: state.depth, toolUses: attempt.toolUses, results: batch.results, messages: state.messages, signal: ctx.signal };
    return ask(() => post(input)).pipe(map((hook) => settled(decideAfterPostToolBatch(state, message, uuid(), batch, hook, absorb(), ctx.decideConfig))));
  }
  if (decision.type === 'run_stop_hook' || decision.type === 'run_post_tool_batch') {
    return defer(() => {
      throw new Error(`internal: unresolved decision ${decision.type}`);
    });
  }
  if (decision.type === 'continue' && decision.state.transition?.reason === 'next_turn' && message && attempt.toolUses.length > 0) {
    // Queued input rides with the tool results (absorbed only when the turn goes on).
    return defer(() => {
      const queued = absorb();
      return of(queued.length > 0 ? settled(decideAfterPostToolBatch(state, message, uuid(), batchOf(attempt), undefined, queued, ctx.decideConfig)) : decision);
    });
  }
  return of(decision);
}

/** One hook answer; a hook that fails is ignored with a warning (the run goes on). */
function ask(call: () => MaybeAsync<HookDecision>): Observable<HookDecision> {
  return defer(() => fromMaybeAsync(call())).pipe(
    take(1),
    catchError((error: unknown) => of<HookDecision>({ warnings: [`a hook failed and was ignored: ${error instanceof Error ? error.message : String(error)}`] })),
  );
}

function settled(decision: Decision): SettledDecision {
  if (decision.type === 'run_stop_hook' || decision.type === 'run_post_tool_batch') throw new Error(`internal: unresolved decision ${decision.type}`);
  return decision;
}
