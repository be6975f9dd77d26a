/**
 * The run's context: immutable dependencies only (a type test: a mutable field fails
 * `npm run typecheck`), and the abort as a stream of state the decision points compose.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { EMPTY } from 'rxjs';
import { createRunContext, type RunContext } from '../../src/loop/runContext.js';

const contextFor = (signal?: AbortSignal): RunContext =>
  createRunContext({ model: 'claude-sonnet-4-5', prompt: 'go', ...(signal ? { signal } : {}), deps: { callModel: () => EMPTY } });

/** What `aborted$` emits to a subscriber that stays, as it happens. */
function abortStates(ctx: RunContext): { readonly seen: boolean[]; stop(): void } {
  const seen: boolean[] = [];
  const subscription = ctx.aborted$.subscribe((aborted) => seen.push(aborted));
  return { seen, stop: () => subscription.unsubscribe() };
}

describe('RunContext', () => {
  it('has only readonly fields (the input side and the sent-history cache live elsewhere)', () => {
    expectTypeOf<RunContext>().toEqualTypeOf<Readonly<RunContext>>();
    expectTypeOf<RunContext>().not.toHaveProperty('input');
    expectTypeOf<RunContext>().not.toHaveProperty('sentHistory');
    expectTypeOf<RunContext>().not.toHaveProperty('abortCause');
  });

  it('aborted$: false on subscribe, then true when the caller aborts', () => {
    const controller = new AbortController();
    const ctx = contextFor(controller.signal);
    const states = abortStates(ctx);
    expect(states.seen).toEqual([false]);
    controller.abort();
    expect(states.seen).toEqual([false, true]);
    ctx.dispose();
  });

  it('aborted$: only true for a subscriber after the abort (its first value is the state now)', () => {
    const controller = new AbortController();
    const ctx = contextFor(controller.signal);
    controller.abort();
    expect(abortStates(ctx).seen).toEqual([true]);
    const already = new AbortController();
    already.abort();
    expect(abortStates(contextFor(already.signal)).seen).toEqual([true]);
  });

  it('aborted$: teardown aborts the run silently (no terminal may follow), so it stays false', () => {
    const ctx = contextFor(new AbortController().signal);
    const states = abortStates(ctx);
    ctx.dispose();
    expect(ctx.signal.aborted).toBe(true);
    expect(states.seen).toEqual([false]);
    expect(abortStates(ctx).seen).toEqual([false]);
  });

  it('aborted$: stops listening to the caller signal when unsubscribed', () => {
    const controller = new AbortController();
    const ctx = contextFor(controller.signal);
    const states = abortStates(ctx);
    states.stop();
    controller.abort();
    expect(states.seen).toEqual([false]);
    ctx.dispose();
  });
});
