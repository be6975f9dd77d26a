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
  if (!asksNoHook(decision)) {
    return defer(() => {
      throw new Error(`internal: unresolved decision ${decision.type}`);
    });
  }
  return defer(() => of(settleNow(ctx, attempt, decision, absorb)));
}

/** A decision that asks no hook: `settleNow` settles it without a stream. */
export function asksNoHook(decision: Decision): decision is SettledDecision {
  return decision.type === 'terminal' || decision.type === 'continue';
}

/**
 * What `resolveHooks` settles a decision that asks no hook to, computed at once: an effect (it
 * may absorb queued input), so it runs at the moment the decision's stream would be subscribed.
 */
export function settleNow(ctx: RunContext, attempt: Attempt, decision: SettledDecision, absorb: () => readonly TextBlock[]): SettledDecision {
  const message = attempt.message;
  if (decision.type === 'continue' && decision.state.transition?.reason === 'next_turn' && message && attempt.toolUses.length > 0) {
    // Queued input rides with the tool results (absorbed only when the turn goes on).
    const queued = absorb();
    return queued.length > 0 ? settled(decideAfterPostToolBatch(attempt.state, message, attempt.messageUuid ?? ctx.newId(), batchOf(attempt), undefined, queued, ctx.decideConfig)) : decision;
  }
  return decision;
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
