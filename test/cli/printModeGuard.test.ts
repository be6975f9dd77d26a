/**
 * Print mode's last line of defence: whatever breaks inside, stream-json consumers get exactly
 * one result line (an error), as Claude Code's print mode gives them.
 */
import { identity } from 'rxjs';
import { expect, test } from 'vitest';
import { parseCliArgs } from '../../src/cli/args.js';
import type { PreparedRun } from '../../src/cli/buildRun.js';
import { createStreamJsonMapper } from '../../src/cli/output/streamJson.js';
import { outputLineSchema } from '../../src/cli/outputSchemas.js';
import { runPrintMode } from '../../src/cli/printMode.js';

test('a loop that errors instead of ending with a terminal still yields one error result line', async () => {
  const description = { sessionId: 's1', cwd: '/w', model: 'm', tools: [], permissionMode: 'default' as const, apiKeySource: 'none' };
  const run: PreparedRun = {
    ...description,
    maxOutputTokens: 32_000,
    toolNames: [],
    agents: [],
    slashCommands: [],
    transcriptPath: '/dev/null',
    history: [],
    // No client and no callModel: the loop refuses to start with an Observable error.
    loopOptions: (prompt) => ({ model: 'm', prompt }),
    setModel: () => {},
    setPermissionMode: () => {},
    setMaxThinkingTokens: () => {},
    structuredOutput: () => undefined,
    addSessionRules: () => {},
    setFlagRules: () => {},
    traceTurn: () => identity,
    close: async () => {},
  };
  const out: string[] = [];
  const err: string[] = [];
  const code = await runPrintMode(
    parseCliArgs(['-p', '--output-format', 'stream-json', 'hi']),
    run,
    createStreamJsonMapper(description, { includePartialMessages: false, newUuid: () => 'u', now: () => Date.now() }),
    'hi',
    new AbortController().signal,
    { writeOut: (t) => out.push(t), writeErr: (t) => err.push(t) },
  );
  const lines = out.join('').trim().split('\n').map((l) => outputLineSchema.parse(JSON.parse(l)));
  expect(code).toBe(1);
  expect(lines.map((l) => l.type)).toEqual(['system', 'result']);
  const result = lines[1]!;
  expect(result.type === 'result' && result.is_error).toBe(true);
  expect(result.type === 'result' && result.subtype).toBe('error_during_execution');
  expect(JSON.stringify(result)).toContain('internal error: agentLoop needs `client` or `deps.callModel`');
  expect(err.join('')).toMatch(/^rxagent: .*internal error/);
});
