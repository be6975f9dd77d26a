/**
 * `IdleWatch`: calls `onIdle` once `ms` pass without a `touch()`, measured on `scheduler`'s
 * clock (virtual inside `TestScheduler.run`). Shared by `idleTimeout()` and the client's fused
 * attempt stage.
 *
 * Why one timer per idle window and not one per touch: a touch comes with every SSE event of a
 * response, and setting and clearing a timer per event was most of the client's CPU on a long
 * answer. A touch only reads the clock; the timer, when it fires before the window has really
 * passed, re-arms for what is left of it, so the idle error comes exactly `ms` after the last
 * touch, as if the timer had been restarted every time.
 */
import { Subscription, type SchedulerLike } from 'rxjs';
import { keepShape } from '../../src/util/keepShape.js';

export class IdleWatch {
  private lastTouch: number;
  private pending: Subscription | undefined;

  constructor(
    private readonly ms: number,
    private readonly scheduler: SchedulerLike,
    private readonly onIdle: () => void,
  ) {
    this.lastTouch = scheduler.now();
    this.arm(ms);
  }

  touch(): void {
    this.lastTouch = this.scheduler.now();
  }

  stop(): void {
    this.pending?.unsubscribe();
    this.pending = undefined;
  }

  private arm(delay: number): void {
    this.pending = this.scheduler.schedule(() => this.check(), delay);
  }

  private check(): void {
    const idleFor = this.scheduler.now() - this.lastTouch;
    if (idleFor >= this.ms) this.onIdle();
    else this.arm(this.ms - idleFor);
  }
}

/**
 * One idle watch, so the class's hidden class and the code optimized for it survive a full GC
 * between two responses (see keepShape). Its scheduler never runs anything.
 */
const NO_TIMERS: SchedulerLike = { now: () => 0, schedule: () => Subscription.EMPTY };
keepShape(new IdleWatch(1, NO_TIMERS, () => undefined)).stop();
