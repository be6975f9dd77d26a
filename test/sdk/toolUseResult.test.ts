/**
 * `tool_use_result` on the SDK's user messages: each built-in tool's structured result, in the
 * shapes of the SDK's own `sdk-tools.d.ts` (`BashOutput`, `FileReadOutput`, `FileEditOutput`,
 * `FileWriteOutput`, `GlobOutput`, `GrepOutput`; checked with tsc), while the model still gets
 * the same text; a failed call's is `Error: <text>`, as Claude Code prints it. A PostToolUse
 * hook callback gets the structured result as `tool_response`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeSandbox } from '../cli/helpers.js';
import { compileAgainstSdkTools } from './compileSource.js';
import { assertBuilt, removeSandboxes, resultOf, resultsById, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

type Call = { readonly type: 'tool_use'; readonly name: string; readonly input: Record<string, unknown> };
const calls = (...blocks: Call[]) => ({ kind: 'message' as const, blocks });
/** The scripted server's ids: toolu_scripted_<response>_<block>. */
const use = (name: string, input: Record<string, unknown>): Call => ({ type: 'tool_use', name, input });

/** The tool_result contents the model got, by tool_use_id, over all requests. */
function sentResults(bodies: ReadonlyArray<{ messages: Array<{ content: unknown }> } | undefined>): Map<string, unknown> {
  const sent = new Map<string, unknown>();
  for (const body of bodies)
    for (const message of body?.messages ?? [])
      if (Array.isArray(message.content))
        for (const block of message.content as Array<{ type: string; tool_use_id?: string; content?: unknown }>)
          if (block.type === 'tool_result' && block.tool_use_id) sent.set(block.tool_use_id, block.content);
  return sent;
}

test('every built-in tool gives its structured result as tool_use_result; the model sees the same text as before', async () => {
  const sandbox = makeSandbox({ 'notes.txt': 'alpha\nbeta\ngamma\n' });
  const notes = join(sandbox.cwd, 'notes.txt');
  const fresh = join(sandbox.cwd, 'fresh.txt');
  const hookSaw: unknown[] = [];
  const { messages, server } = await runQuery(
    [
      calls(use('Read', { file_path: notes, offset: 2, limit: 1 })),
      calls(use('Edit', { file_path: notes, old_string: 'beta', new_string: 'BETA' }), use('Write', { file_path: fresh, content: 'one\n' })),
      calls(use('Write', { file_path: notes, content: 'alpha\nBETA\ndelta\n' })),
      calls(
        use('Bash', { command: 'echo hi' }),
        use('Glob', { pattern: '*.txt' }),
        use('Grep', { pattern: 'BETA', output_mode: 'content' }),
        use('Grep', { pattern: 'a', output_mode: 'count' }),
        use('Bash', { command: 'echo oops; exit 3' }),
      ),
      { kind: 'message', blocks: [{ type: 'text', text: 'all done' }] },
    ],
    'use the tools',
    {
      permissionMode: 'bypassPermissions',
      hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [async (input) => (hookSaw.push(input), {})] }] },
    },
    { sandbox },
  );
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'all done' });
  expect(readFileSync(notes, 'utf8')).toBe('alpha\nBETA\ndelta\n');
  const byId = resultsById(messages);
  const structured = (id: string) => byId.get(id)?.tool_use_result;

  expect(structured('toolu_scripted_0_0')).toEqual({ type: 'text', file: { filePath: notes, content: 'beta', numLines: 1, startLine: 2, totalLines: 3 } });
  expect(structured('toolu_scripted_1_0')).toEqual({
    filePath: notes,
    oldString: 'beta',
    newString: 'BETA',
    originalFile: 'alpha\nbeta\ngamma\n',
    structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' alpha', '-beta', '+BETA', ' gamma'] }],
    userModified: false,
    replaceAll: false,
  });
  expect(structured('toolu_scripted_1_1')).toEqual({ type: 'create', filePath: fresh, content: 'one\n', structuredPatch: [], originalFile: null });
  expect(structured('toolu_scripted_2_0')).toEqual({
    type: 'update',
    filePath: notes,
    content: 'alpha\nBETA\ndelta\n',
    structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' alpha', ' BETA', '-gamma', '+delta'] }],
    originalFile: 'alpha\nBETA\ngamma\n',
  });
  expect(structured('toolu_scripted_3_0')).toEqual({ stdout: 'hi', stderr: '', interrupted: false, isImage: false, noOutputExpected: false });
  expect(structured('toolu_scripted_3_1')).toMatchObject({ numFiles: 2, truncated: false, totalMatches: 2, countIsComplete: true });
  expect([...((structured('toolu_scripted_3_1') as { filenames: string[] }).filenames)].sort()).toEqual([fresh, notes]);
  expect(structured('toolu_scripted_3_2')).toEqual({ mode: 'content', numFiles: 1, filenames: ['notes.txt'], content: 'notes.txt:2:BETA', numLines: 1 });
  expect(structured('toolu_scripted_3_3')).toMatchObject({ mode: 'count', numFiles: 1, filenames: ['notes.txt'], content: 'notes.txt:2', numMatches: 2 });
  // A failed call: no structured result, its text prefixed as Claude Code prints it.
  expect(structured('toolu_scripted_3_4')).toBe('Error: `Bash` failed: oops\n[exit code 3]');

  // What the model got is the text, unchanged by the structured part.
  const sent = sentResults(server.requests.map((r) => r.body));
  expect(sent.get('toolu_scripted_0_0')).toMatch(/^2\tbeta/);
  expect(sent.get('toolu_scripted_3_0')).toBe('hi\n[exit code 0]');
  expect(sent.get('toolu_scripted_3_4')).toBe('`Bash` failed: oops\n[exit code 3]');
  expect(JSON.stringify([...sent.values()])).not.toContain('structuredPatch');

  // The PostToolUse hook callback got Bash's structured result as tool_response.
  expect(hookSaw).toHaveLength(1); // a failed call has no PostToolUse (it ran, but as an error)
  expect(hookSaw[0]).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_response: { stdout: 'hi', interrupted: false } });

  // Each structured result type-checks against the SDK's own tool output types.
  const typeOf: Record<string, string> = { toolu_scripted_0_0: 'FileReadOutput', toolu_scripted_1_0: 'FileEditOutput', toolu_scripted_1_1: 'FileWriteOutput', toolu_scripted_2_0: 'FileWriteOutput', toolu_scripted_3_0: 'BashOutput', toolu_scripted_3_1: 'GlobOutput', toolu_scripted_3_2: 'GrepOutput', toolu_scripted_3_3: 'GrepOutput' };
  expect(compileAgainstSdkTools(Object.entries(typeOf).map(([id, type]) => [type, structured(id)] as const))).toEqual([]);
}, 120_000);
