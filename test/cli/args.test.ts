/** parseCliArgs: Claude Code's print-mode spelling, defaults, and clear usage errors. */
import { describe, expect, test } from 'vitest';
import { DEFAULT_MODEL, parseCliArgs, splitToolList, UsageError } from '../../src/cli/args.js';

describe('parseCliArgs', () => {
  test('defaults', () => {
    const o = parseCliArgs(['-p', 'hello', 'world']);
    expect(o).toMatchObject({ print: true, prompt: 'hello world', outputFormat: 'text', model: DEFAULT_MODEL, permissionMode: 'default', tools: undefined });
    expect(o.allowedTools).toEqual([]);
  });

  test('Claude Code spellings', () => {
    const o = parseCliArgs([
      '--print', '--output-format', 'stream-json', '--verbose', '--include-partial-messages', '--max-turns', '3',
      '--allowedTools', 'Read Bash(git diff:*)', '--disallowed-tools', 'Write', '--dangerously-skip-permissions',
      '--tools', 'Read,Edit', '--add-dir', '../a', '--add-dir', '../b', '-r', 'abc', '--fork-session', '--max-budget-usd', '0.5',
    ]);
    expect(o).toMatchObject({
      outputFormat: 'stream-json',
      verbose: true,
      includePartialMessages: true,
      maxTurns: 3,
      permissionMode: 'bypassPermissions',
      tools: ['Read', 'Edit'],
      addDirs: ['../a', '../b'],
      resume: 'abc',
      forkSession: true,
      maxBudgetUsd: 0.5,
    });
    expect(o.allowedTools).toEqual(['Read', 'Bash(git diff:*)']);
    expect(o.disallowedTools).toEqual(['Write']);
  });

  test('--tools "" means no tools', () => {
    expect(parseCliArgs(['--tools', '']).tools).toEqual([]);
  });

  test.each([
    [['--bogus']],
    [['--output-format', 'xml']],
    [['--permission-mode', 'yolo']],
    [['--max-turns', '0']],
    [['--max-turns', '1.5']],
    [['--max-budget-usd', '-1']],
    [['--session-id', 'not-a-uuid']],
    [['--resume', 'a', '--continue']],
    [['--fork-session']],
    [['--input-format', 'stream-json']],
  ])('%j is a usage error with a one-line message', (argv) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError);
    try {
      parseCliArgs(argv);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });
});

test('splitToolList keeps separators inside parentheses', () => {
  expect(splitToolList(['Read, Bash(npm run test:*) Edit(src/a b.ts)'])).toEqual(['Read', 'Bash(npm run test:*)', 'Edit(src/a b.ts)']);
});
