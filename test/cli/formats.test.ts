/**
 * Flag combinations of print mode, as Claude Code's print mode treats them: `--verbose` changes
 * nothing in text output; `--output-format json --verbose` prints one JSON array of every line
 * (init first, result last); `--include-partial-messages` matters only with stream-json; and
 * stream-json works with or without `--verbose` (Claude Code requires it; we do not).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { outputLineSchema } from '../../src/cli/outputSchemas.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, runAgainst } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const script = (): ScriptedResponse[] => [
  { kind: 'message', blocks: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_glob', name: 'Glob', input: { pattern: '*.txt' } }] },
  { kind: 'message', blocks: [{ type: 'text', text: 'Found a.txt.', chunkSize: 3 }] },
];

describe.concurrent('print-mode flag combinations', () => {
  test('text with --verbose and --include-partial-messages prints only the final answer', async () => {
    const box = makeSandbox({ 'a.txt': 'a' });
    const run = await runAgainst(script(), ['-p', 'find', '--verbose', '--include-partial-messages'], box);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Found a.txt.\n');
    expect(run.stderr).toBe('');
  });

  test('json with --verbose: one array of every line, all valid, init first, result last, no partial events', async () => {
    const box = makeSandbox({ 'a.txt': 'a' });
    const run = await runAgainst(script(), ['-p', 'find', '--output-format', 'json', '--verbose', '--include-partial-messages'], box);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const array = JSON.parse(run.stdout) as unknown[];
    const lines = array.map((l) => outputLineSchema.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['system', 'assistant', 'assistant', 'user', 'assistant', 'result']);
    expect(lines[lines.length - 1]).toMatchObject({ subtype: 'success', result: 'Found a.txt.' });
  });

  test('json without --verbose (with --include-partial-messages): the result object only', async () => {
    const box = makeSandbox({ 'a.txt': 'a' });
    const run = await runAgainst(script(), ['-p', 'find', '--output-format', 'json', '--include-partial-messages'], box);
    expect(run.code).toBe(0);
    const lines = parseLines(run.stdout);
    expect(lines.map((l) => l.type)).toEqual(['result']);
  });

  test('stream-json gives the same lines with and without --verbose', async () => {
    const box = makeSandbox({ 'a.txt': 'a' });
    const shape = async (args: string[]) => {
      const run = await runAgainst(script(), ['-p', 'find', '--output-format', 'stream-json', ...args], box);
      expect(run.code).toBe(0);
      return parseLines(run.stdout).map((l) => `${l.type}${'subtype' in l ? `/${l.subtype}` : ''}`);
    };
    const [plain, verbose] = await Promise.all([shape([]), shape(['--verbose'])]);
    expect(plain).toEqual(['system/init', 'assistant', 'assistant', 'user', 'assistant', 'result/success']);
    expect(verbose).toEqual(plain);
  });
});
