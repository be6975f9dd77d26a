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
    // stream-json input needs stream-json output, as in Claude Code.
    [['--input-format', 'stream-json']],
    [['--input-format', 'xml']],
    [['--setting-sources', 'user,cloud']],
    [['--effort', 'extreme']],
    [['--system-prompt', 'a', '--system-prompt-file', 'b']],
    [['--allowedTools', 'Bash(git']],
  ])('%j is a usage error with a one-line message', (argv) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError);
    try {
      parseCliArgs(argv);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });
});

describe('Claude Code and Agent SDK spellings', () => {
  test('variadic list flags take every word up to the next flag', () => {
    const o = parseCliArgs(['-p', '--allowedTools', 'Read', 'Edit', 'Bash(git diff:*)', '--add-dir', 'd1', 'd2', '--tools', 'Read', 'Bash', '--model', 'm', 'the prompt']);
    expect(o.allowedTools).toEqual(['Read', 'Edit', 'Bash(git diff:*)']);
    expect(o.addDirs).toEqual(['d1', 'd2']);
    expect(o.tools).toEqual(['Read', 'Bash']);
    expect(o.prompt).toBe('the prompt');
  });

  test('--flag=value keeps one value; a comma list still splits', () => {
    const o = parseCliArgs(['--allowedTools=Read,Edit', '--disallowedTools=Bash', '--add-dir=/a', 'prompt']);
    expect(o.allowedTools).toEqual(['Read', 'Edit']);
    expect(o.disallowedTools).toEqual(['Bash']);
    expect(o.addDirs).toEqual(['/a']);
    expect(o.prompt).toBe('prompt');
  });

  test('the command line the Agent SDK builds parses, and is print mode without -p', () => {
    const o = parseCliArgs([
      '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json', '--max-thinking-tokens=2000', '--effort=high',
      '--max-turns=3', '--model=claude-sonnet-4-5', '--agent=rev', '--betas=context-1m-2025-08-07', '--json-schema={"type":"object"}',
      '--permission-prompt-tool=stdio', '--tools=Read,Bash', '--setting-sources=project,local', '--permission-mode=acceptEdits',
      '--include-partial-messages', '--include-hook-events', '--add-dir=/tmp', '--add-dir=/var', '--no-session-persistence',
      '--settings', '{"model":"x"}', '--allow-dangerously-skip-permissions', '--thinking=adaptive', '--debug-file=/tmp/d.log',
      '--resume=sess-1', '--resume-session-at=abc', '--thinking-display=summarized', '--replay-user-messages',
    ]);
    expect(o).toMatchObject({
      print: true,
      inputFormat: 'stream-json',
      outputFormat: 'stream-json',
      maxThinkingTokens: 2000,
      effort: 'high',
      agent: 'rev',
      betas: ['context-1m-2025-08-07'],
      jsonSchema: '{"type":"object"}',
      permissionPromptTool: 'stdio',
      tools: ['Read', 'Bash'],
      settingSources: ['project', 'local'],
      permissionMode: 'acceptEdits',
      includeHookEvents: true,
      addDirs: ['/tmp', '/var'],
      noSessionPersistence: true,
      settings: '{"model":"x"}',
      thinking: 'adaptive',
      debug: true,
      debugFile: '/tmp/d.log',
      resumeSessionAt: 'abc',
      replayUserMessages: true,
      ignoredFlags: ['--thinking-display'],
    });
  });

  test('--tools default is every tool; manual and auto are accepted as Claude Code 2.1.235 lists them', () => {
    expect(parseCliArgs(['--tools', 'default']).tools).toBeUndefined();
    expect(parseCliArgs(['--permission-mode', 'manual'])).toMatchObject({ permissionMode: 'default', permissionModeAlias: 'manual' });
    expect(parseCliArgs(['--permission-mode', 'auto'])).toMatchObject({ permissionMode: 'default', permissionModeAlias: 'auto' });
  });
});

test('splitToolList keeps separators inside parentheses', () => {
  expect(splitToolList(['Read, Bash(npm run test:*) Edit(src/a b.ts)'])).toEqual(['Read', 'Bash(npm run test:*)', 'Edit(src/a b.ts)']);
});
