/**
 * Inputs built to freeze rxagent rather than to get out: glob patterns that make a backtracking
 * matcher explode on a long file name, wildcard permission rules against a long command, and
 * commands of thousands of words. Each must get an answer (a result, a decision); how fast is
 * the benchmark's business (bench/security.bench.ts), never a test's.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decidePermission } from '../../src/permissions/createPermissionPolicy.js';
import { wildcardMatches } from '../../src/permissions/matchRule.js';
import { parseRuleStrings } from '../../src/permissions/rules.js';
import { MAX_SYNTAX_NODES, parseShell } from '../../src/tools/builtin/shellParse.js';
import { globToRegExp } from '../../src/tools/builtin/globMatch.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import type { Script, ScriptedResponse } from '../../src/testing/script.js';
import { assertBuilt, CLI, makeSandbox, parseLines, removeSandboxes } from '../cli/helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const done: ScriptedResponse = { kind: 'message', blocks: [{ type: 'text', text: 'done' }] };

/**
 * Runs the built command; a frozen one is killed after `hangBoundMs` (a bound for a hang, not a
 * timing: a healthy run ends in seconds) and then shows as `code: null`.
 */
async function runBounded(script: Script, args: readonly string[], box: { cwd: string; home: string }, hangBoundMs = 100_000) {
  const server = await startScriptedServer({ script });
  try {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: box.cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: box.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: hangBoundMs,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, stdout, stderr, requests: server.requests };
  } finally {
    await server.close();
  }
}

const LONG_NAME = 'a'.repeat(200);
// Eight stars then a class: a RegExp backtracks through C(200, 8) ways to fail, and its class
// lookahead keeps V8's linear fallback out (on main the process froze for good).
const EXPLOSIVE = '*a*a*a*a*a*a*a*a*[b]';

describe.concurrent('glob patterns from the model cannot freeze the process', () => {
  test('Glob and Grep (glob filter) with an explosive pattern over a long file name both answer', async () => {
    const box = makeSandbox({ [LONG_NAME]: 'needle\n', 'x.txt': 'needle\n' });
    const calls: ScriptedResponse = {
      kind: 'message',
      blocks: [
        { type: 'tool_use', id: 'toolu_glob', name: 'Glob', input: { pattern: EXPLOSIVE } },
        { type: 'tool_use', id: 'toolu_glob2', name: 'Glob', input: { pattern: `**/${EXPLOSIVE}` } },
        { type: 'tool_use', id: 'toolu_grep', name: 'Grep', input: { pattern: 'needle', glob: EXPLOSIVE } },
        // The control: a plain pattern still finds the long name.
        { type: 'tool_use', id: 'toolu_plain', name: 'Glob', input: { pattern: 'a*a' } },
      ],
    };
    const run = await runBounded([calls, done], ['-p', 'go', '--output-format', 'json'], box);
    expect(run.code, 'the run froze and was killed').toBe(0);
    const results = JSON.stringify(run.requests[1]?.body);
    expect(results.match(/No files match/g)?.length).toBe(2);
    expect(results).toMatch(/No files found|No matches/);
    expect(results).toContain(LONG_NAME);
    expect(parseLines(run.stdout)).toHaveLength(1);
  }, 150_000);

  test('a class never matches "/", even through a range that spans it', () => {
    // `+-0` is the range from `+` to `0`, over `,`, `-`, `.` and `/`.
    expect(globToRegExp('a[+-0]b').test('a/b')).toBe(false);
    expect(globToRegExp('a[+-0]b').test('a.b')).toBe(true);
    expect(globToRegExp('a[+-0]b').test('a0b')).toBe(true);
    expect(globToRegExp('a[!-0]b').test('a/b')).toBe(false);
    expect(globToRegExp('a[!-0]b').test('a.b')).toBe(true);
    expect(globToRegExp('a[!-0]b').test('a0b')).toBe(false);
    expect(globToRegExp('a[/]b').test('a/b')).toBe(false);
    expect(globToRegExp('a[^x]b').test('a/b')).toBe(false);
    expect(globToRegExp('[a-c]\n').test('b\n')).toBe(true);
    expect(globToRegExp(EXPLOSIVE).test(LONG_NAME)).toBe(false);
    expect(globToRegExp(`${EXPLOSIVE.slice(0, -3)}a`).test(LONG_NAME)).toBe(true);
  });
});

describe('wildcard permission rules are matched without backtracking', () => {
  test.each<[label: string, pattern: string, text: string, matches: boolean]>([
    ['* / empty', '*', '', true],
    ['a* / a', 'a*', 'a', true],
    ['a*b / ab', 'a*b', 'ab', true],
    ['ab*ba / aba: prefix and suffix may not share characters', 'ab*ba', 'aba', false],
    ['ab*ba / abba', 'ab*ba', 'abba', true],
    ['*rm -rf* across a newline', '*rm -rf*', 'echo x\nrm -rf /', true],
    ['*a*a*a*b / 50,000 a', '*a*a*a*b', 'a'.repeat(50_000), false],
    ['*a*a*a*b / 50,000 a then b', '*a*a*a*b', `${'a'.repeat(50_000)}b`, true],
    ['git * --force / at the end', 'git * --force', 'git push origin --force', true],
    ['git * --force / in the middle', 'git * --force', 'git push --force origin', false],
  ])('%s', (_label, pattern, text, matches) => {
    expect(wildcardMatches(pattern.split('*'), text)).toBe(matches);
  });

  test('a 60 KB command under a four-star deny rule gets a decision (the rule matches)', () => {
    const rules = parseRuleStrings({ deny: ['Bash(*a*a*a*b)'] });
    const verdict = decidePermission('bypassPermissions', rules, { toolName: 'Bash', input: { command: `${'a'.repeat(60_000)}b` } }, { cwd: process.cwd() });
    expect(verdict.behavior).toBe('deny');
    const miss = decidePermission('bypassPermissions', rules, { toolName: 'Bash', input: { command: 'a'.repeat(60_000) } }, { cwd: process.cwd() });
    // Too long to parse, so a Bash deny rule cannot be shown not to match: it asks.
    expect(miss.behavior).toBe('ask');
  });
});

describe('commands of thousands of words are refused, not read for ever', () => {
  test(`a command with more than ${MAX_SYNTAX_NODES} syntax parts is not classified`, () => {
    const parsed = parseShell(`cat ${'a* '.repeat(2_000)}`);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.reason).toMatch(/syntax parts, too many to check/);
    // Just under: still classified as usual.
    expect(parseShell(`cat ${'a '.repeat(200)}`).ok).toBe(true);
  });

  test('through the CLI: 30,000 globs in 60 KB, and 3,000 in 6 KB, each get a denial in -p, never a run', async () => {
    const box = makeSandbox({ 'a.txt': 'x\n' });
    const big = `cat ${'a* '.repeat(20_000)}; touch pwned-big`;
    const small = `cat ${'a* '.repeat(2_000)}; touch pwned-small`;
    const calls: ScriptedResponse = {
      kind: 'message',
      blocks: [big, small].map((command, i) => ({ type: 'tool_use' as const, id: `toolu_${i}`, name: 'Bash', input: { command } })),
    };
    writeFileSync(join(box.cwd, '.keep'), '');
    const run = await runBounded([calls, done], ['-p', 'go', '--output-format', 'json', '--disallowedTools', 'Bash(rm:*)', 'Read(secrets/**)'], box);
    expect(run.code, run.stderr).toBe(0);
    const result = parseLines(run.stdout)[0] as { permission_denials: unknown[] };
    expect(result.permission_denials).toHaveLength(2);
  }, 150_000);
});
