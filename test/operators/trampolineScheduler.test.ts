import { describe, expect, it } from 'vitest';
import { defer, EMPTY, expand, lastValueFrom, of, queueScheduler, subscribeOn, count } from 'rxjs';
import { createTrampolineScheduler } from '../../operators/internal/trampolineScheduler.js';

describe('createTrampolineScheduler', () => {
  it('runs work scheduled from outside at once, and work scheduled inside after the running work returns', () => {
    const scheduler = createTrampolineScheduler();
    const order: string[] = [];
    scheduler.schedule(() => {
      order.push('outer start');
      scheduler.schedule(() => order.push('inner'));
      order.push('outer end');
    });
    expect(order).toEqual(['outer start', 'outer end', 'inner']);
  });

  it('does not share its queue with RxJS queueScheduler', () => {
    const ours = createTrampolineScheduler();
    const order: string[] = [];
    queueScheduler.schedule(() => {
      // While RxJS's global queue runs, our trampoline is idle: its work runs at once.
      ours.schedule(() => order.push('ours'));
      order.push('after ours');
    });
    expect(order).toEqual(['ours', 'after ours']);
  });

  it('an unsubscribed action never runs', () => {
    const scheduler = createTrampolineScheduler();
    const ran: string[] = [];
    scheduler.schedule(() => {
      const pending = scheduler.schedule(() => ran.push('cancelled'));
      pending.unsubscribe();
      scheduler.schedule(() => ran.push('kept'));
    });
    expect(ran).toEqual(['kept']);
  });

  it('trampolines a deep expand recursion without growing the stack', async () => {
    const scheduler = createTrampolineScheduler();
    const steps = await lastValueFrom(
      of(0).pipe(
        expand((n) => (n < 50_000 ? defer(() => of(n + 1)).pipe(subscribeOn(scheduler)) : EMPTY)),
        count(),
      ),
    );
    expect(steps).toBe(50_001);
  });
});
