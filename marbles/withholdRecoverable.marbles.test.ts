import { describe, expect, it } from 'vitest';
import { Observable, take, type Subscriber } from 'rxjs';
import { withholdRecoverable } from '../operators/withholdRecoverable.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const recoverable = new Error('recoverable');
const fatal = new Error('fatal');
const isRecoverable = (e: unknown) => e === recoverable;

describe('withholdRecoverable', () => {
  it('passes an empty source through', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold(' ---|');
      expectObservable(source.pipe(withholdRecoverable({ isRecoverable, recover: () => undefined }))).toBe('---|');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('passes one and many values through in their frames', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a|').pipe(withholdRecoverable({ isRecoverable, recover: () => undefined }))).toBe('-a|');
      expectObservable(cold('-a-b-c|').pipe(withholdRecoverable({ isRecoverable, recover: () => undefined }))).toBe('-a-b-c|');
    });
  });

  it('lets a non-recoverable error through at once, without calling recover', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      let called = 0;
      const out = cold('-a-#', undefined, fatal).pipe(
        withholdRecoverable({ isRecoverable, recover: () => (called++, cold('r|')) }),
      );
      expectObservable(out).toBe('-a-#', undefined, fatal);
      expect(called).toBe(0);
    });
  });

  it('holds a recoverable error while the recovery runs; a successful recovery hides it', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const recovery = cold('   --r|');
      const out = cold('-a-#', undefined, recoverable).pipe(withholdRecoverable({ isRecoverable, recover: () => recovery }));
      expectObservable(out).toBe('-a---r|');
      expectSubscriptions(recovery.subscriptions).toBe('---^--!');
    });
  });

  it('releases the ORIGINAL error when the recovery fails', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const recovery = cold('   --r-#', undefined, new Error('compaction failed'));
      const out = cold('-a-#', undefined, recoverable).pipe(withholdRecoverable({ isRecoverable, recover: () => recovery }));
      expectObservable(out).toBe('-a---r-#', undefined, recoverable);
    });
  });

  it('releases the error at once when no recovery is available', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const out = cold('-a-#', undefined, recoverable).pipe(withholdRecoverable({ isRecoverable, recover: () => undefined }));
      expectObservable(out).toBe('-a-#', undefined, recoverable);
    });
  });

  it('treats throwing callbacks as "not recoverable" / "recovery failed"', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const throwsIs = cold('-#', undefined, recoverable).pipe(
        withholdRecoverable({
          isRecoverable: () => {
            throw new Error('bad predicate');
          },
          recover: () => undefined,
        }),
      );
      expectObservable(throwsIs).toBe('-#', undefined, recoverable);
      const throwsRecover = cold('-#', undefined, recoverable).pipe(
        withholdRecoverable({
          isRecoverable,
          recover: () => {
            throw new Error('bad recover');
          },
        }),
      );
      expectObservable(throwsRecover).toBe('-#', undefined, recoverable);
    });
  });

  it('unsubscribes a never-ending source, and a running recovery, early', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const never = cold('-a-b-');
      expectObservable(never.pipe(withholdRecoverable({ isRecoverable, recover: () => undefined })), '---!').toBe('-a-');
      expectSubscriptions(never.subscriptions).toBe('^--!');
      const recovery = cold('  -r---');
      const out = cold('-#', undefined, recoverable).pipe(withholdRecoverable({ isRecoverable, recover: () => recovery }));
      expectObservable(out, '----!').toBe('--r-');
      expectSubscriptions(recovery.subscriptions).toBe('-^--!');
    });
  });

  it('is cold: a second subscription calls recover again, fresh', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      let calls = 0;
      const out = cold('-#', undefined, recoverable).pipe(
        withholdRecoverable({ isRecoverable, recover: () => (++calls === 1 ? cold('r|') : cold('s|')) }),
      );
      expectObservable(out).toBe('-r|');
      expectObservable(out).toBe('-s|');
    });
  });

  it('stops listening to a synchronous source when unsubscribed', () => {
    const sideEffects: number[] = [];
    const source = new Observable<number>((subscriber: Subscriber<number>) => {
      for (let i = 0; !subscriber.closed && i < 10; i++) {
        sideEffects.push(i);
        subscriber.next(i);
      }
    });
    source.pipe(withholdRecoverable({ isRecoverable, recover: () => undefined }), take(3)).subscribe();
    expect(sideEffects).toEqual([0, 1, 2]);
  });
});
