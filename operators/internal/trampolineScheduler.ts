/**
 * A trampoline of our own for the loop's iterations. Private to the package.
 *
 * Why not RxJS's `queueScheduler`: that queue is global, shared with any other RxJS code that
 * uses it (a consumer's `observeOn(queueScheduler)` would interleave with the loop's iterations),
 * and RxJS does not export a way to make another one. redux-observable builds a private queue
 * for the same reason. Work scheduled while the trampoline runs waits for the running work to
 * return (no stack growth across iterations); work scheduled from outside runs at once. A delay
 * falls back to `asyncScheduler` (the loop never asks for one).
 */
import { asyncScheduler, Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

export function createTrampolineScheduler(): SchedulerLike {
  const queue: { run: () => void; subscription: Subscription }[] = [];
  let draining = false;
  const drain = (): void => {
    draining = true;
    try {
      for (let next = queue.shift(); next; next = queue.shift()) {
        if (!next.subscription.closed) next.run();
      }
    } finally {
      draining = false;
    }
  };
  const scheduler: SchedulerLike = {
    now: () => asyncScheduler.now(),
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
      if (delay > 0) return asyncScheduler.schedule(work, delay, state);
      const subscription = new Subscription();
      const action = Object.assign(subscription, {
        schedule: (nextState?: T, nextDelay?: number) => scheduler.schedule(work, nextDelay, nextState),
      }) as SchedulerAction<T>;
      queue.push({ run: () => work.call(action, state), subscription });
      if (!draining) drain();
      return subscription;
    },
  };
  return scheduler;
}
