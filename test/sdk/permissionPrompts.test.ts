/**
 * `permissionPrompts: 'none'` (the SDK passes `--permission-prompts none`): nobody answers, so a
 * call that would ask is refused at once and `canUseTool` is never called; rules and the mode
 * still decide the rest. The default ('host') asks canUseTool.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeSandbox } from '../cli/helpers.js';
import { assertBuilt, removeSandboxes, resultOf, resultsById, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const script = [
  { kind: 'message' as const, blocks: [{ type: 'tool_use' as const, id: 'tu_write', name: 'Write', input: { file_path: 'out.txt', content: 'x\n' } }] },
  { kind: 'message' as const, blocks: [{ type: 'tool_use' as const, id: 'tu_glob', name: 'Glob', input: { pattern: '*' } }] },
  { kind: 'message' as const, blocks: [{ type: 'text' as const, text: 'done' }] },
];

test("permissionPrompts 'none': the Write that would ask is refused without asking canUseTool; Glob still runs", async () => {
  const sandbox = makeSandbox();
  const asked: string[] = [];
  const { messages } = await runQuery(script, 'write and look', {
    permissionPrompts: 'none',
    canUseTool: async (name, input) => (asked.push(name), { behavior: 'allow', updatedInput: input }),
  }, { sandbox });
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'done' });
  expect(asked).toEqual([]);
  const results = resultsById(messages);
  expect(JSON.stringify(results.get('tu_write')?.message.content)).toContain('"is_error":true');
  expect(JSON.stringify(results.get('tu_glob')?.message.content)).not.toContain('"is_error":true');
  expect(existsSync(join(sandbox.cwd, 'out.txt'))).toBe(false);

  const host = makeSandbox();
  const hostAsked: string[] = [];
  const asking = await runQuery(script, 'write and look', { canUseTool: async (name, input) => (hostAsked.push(name), { behavior: 'allow', updatedInput: input }) }, { sandbox: host });
  expect(resultOf(asking.messages)[0]).toMatchObject({ subtype: 'success' });
  expect(hostAsked).toEqual(['Write']);
  expect(existsSync(join(host.cwd, 'out.txt'))).toBe(true);
}, 120_000);
