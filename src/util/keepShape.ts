/**
 * `keepShape(instance)`: keeps one idle instance of a class alive for the life of the process.
 *
 * Why: V8 holds the hidden class (map) that a class's instances end up with only while some
 * object has it; the transition to it is weak. When the last instance dies, the next full GC
 * frees that map and throws away the optimized code of every function built on it ("weak
 * objects" in `--trace-deopt`), and the next batch runs in the interpreter until TurboFan has
 * compiled it all again. A tool batch is short-lived and a process may run one every few
 * seconds with collections in between, so without a kept instance it paid that every time.
 * Measured on a one-tool `scheduleTools` batch with a full GC before each sample of 2,000:
 * 42-54 us per batch without kept instances, 29-31 us with them (15-19 us without the GC;
 * issue 20 §2, bench/README.md "After a forced GC"). Object literals do not need this: their
 * map lives in the literal's boilerplate, with the function that makes them.
 *
 * Keep only instances that hold nothing of a real run (an empty tool set, a closed sink).
 */
import { map, NEVER, Observable, Subscriber } from 'rxjs';

const kept: object[] = [];

export function keepShape<T extends object>(instance: T): T {
  kept.push(instance);
  return instance;
}

/**
 * The same for RxJS's own classes, which every pipeline of ours goes through: a lifted
 * Observable, an operator's subscriber, a subscriber with an observer object (`SafeSubscriber`,
 * `ConsumerObserver`), kept as one idle subscription to `NEVER`, which holds nothing; and the
 * two the streaming path makes per response: an Observable with its own subscribe function, and
 * a plain `Subscriber` given an observer (`subscribeLinked`).
 */
export function keepRxShapes(): void {
  if (rxKept) return;
  rxKept = true;
  keepShape(NEVER.pipe(map((value: unknown) => value)).subscribe({ next: () => undefined, error: () => undefined, complete: () => undefined }));
  keepShape(NEVER.pipe(map((value: unknown) => value)));
  keepShape(new Observable<unknown>(() => undefined));
  const plain = keepShape(new Subscriber<unknown>({ next: () => undefined, error: () => undefined, complete: () => undefined }));
  plain.unsubscribe();
}

let rxKept = false;
