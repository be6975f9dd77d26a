/**
 * `rxagent -p ""` and whitespace-only prompts (issue 21 §3): a usage error, exit 2, one line on
 * stderr, and no request at all (it once sent an empty text block and got the API's 400).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertBuilt, makeSandbox, removeSandboxes, runAgainst } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = [{ kind: 'message' as const, blocks: [{ type: 'text' as const, text: 'never sent' }] }];

describe('a blank -p prompt', () => {
  test.each([
    ['-p ""', ['-p', ''], '', /the prompt is blank|stdin was empty/],
    ['-p "   " (spaces and a tab)', ['-p', ' \t '], '', /the prompt is blank/],
    ['-p "\\n\\n" with blank stdin', ['-p', '\n\n'], '  \n', /the prompt is blank/],
    ['-p with nothing on stdin', ['-p'], '', /stdin was empty/],
  ])('%s: usage error, exit 2, nothing sent', async (_name, args, stdin, why) => {
    const run = await runAgainst(answer, args, { ...makeSandbox(), stdin });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^rxagent: -p needs a prompt/);
    expect(run.stderr).toMatch(why);
    expect(run.server.requests).toHaveLength(0);
  });

  test('a prompt given on stdin alone is fine', async () => {
    const run = await runAgainst(answer, ['-p'], { ...makeSandbox(), stdin: 'hello\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('never sent\n');
    expect(run.server.requests).toHaveLength(1);
  });
});
