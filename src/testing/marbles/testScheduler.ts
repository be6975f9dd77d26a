/**
 * `testScheduler()`: a `TestScheduler` that compares with `node:assert`'s `deepStrictEqual`, so a
 * marble test needs no particular test runner (an `AssertionError` fails it in any of them). Pass
 * your runner's own comparison for its diffs, e.g. `testScheduler((a, e) => expect(a).toEqual(e))`.
 */
import { deepStrictEqual } from 'node:assert';
import { TestScheduler } from 'rxjs/testing';

export function testScheduler(assertDeepEqual: (actual: unknown, expected: unknown) => void = deepStrictEqual): TestScheduler {
  return new TestScheduler(assertDeepEqual);
}
