/**
 * The small project `npm start` copies into a temporary folder: plain JavaScript with a failing
 * test, run by Node's built-in test runner so nothing needs installing.
 */
export const DEMO_FILES: Readonly<Record<string, string>> = {
  'package.json': JSON.stringify(
    { name: 'rxagent-demo-stats', version: '1.0.0', type: 'module', scripts: { test: 'node --test' } },
    null,
    2,
  ) + '\n',
  'src/stats.js': `// Small statistics helpers used by the report generator.

/** Sum of all numbers in the list. */
export function sum(values) {
  let total = 0;
  for (let i = 1; i < values.length; i++) {
    total += values[i];
  }
  return total;
}

/** Arithmetic mean; NaN for an empty list. */
export function mean(values) {
  return values.length === 0 ? NaN : sum(values) / values.length;
}
`,
  'test/stats.test.js': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sum, mean } from '../src/stats.js';

test('sum adds every number', () => {
  assert.equal(sum([1, 2, 3, 4]), 10);
});

test('mean of a list', () => {
  assert.equal(mean([2, 4, 6]), 4);
});

test('mean of nothing is NaN', () => {
  assert.ok(Number.isNaN(mean([])));
});
`,
};

/** The buggy line and its fix, used by the scripted model's Edit call. */
export const DEMO_BUG = {
  file: 'src/stats.js',
  oldString: '  for (let i = 1; i < values.length; i++) {',
  newString: '  for (let i = 0; i < values.length; i++) {',
} as const;

export const DEMO_PROMPT = 'The tests in this project fail. Find the bug, fix it, and make sure the tests pass.';
