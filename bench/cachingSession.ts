/**
 * A tool session of `turns` turns on the scripted server with its prompt-cache simulation: a
 * system prompt and tool definitions of Claude Code's size (about 6k tokens together), each turn
 * one tool call whose result adds about 500 tokens, then an answer. Used by the cost benchmark
 * and its test.
 */
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { agentLoop } from '../src/loop/agentLoop.js';
import type { TerminalEvent } from '../src/loop/types.js';
import type { ScriptedResponse } from '../src/testing/script.js';
import { startScriptedServer } from '../src/testing/scriptedServer.js';
import { defineTool } from '../src/tools/defineTool.js';
import { createMessagesClient } from '../src/transport/createMessagesClient.js';

const SYSTEM = Array.from({ length: 120 }, (_, i) => `Rule ${i}: work carefully, read before you edit, and say what you changed and why.`).join('\n');

const tools = Array.from({ length: 8 }, (_, i) =>
  defineTool({
    name: `tool_${i}`,
    description: `Tool ${i}. `.repeat(60),
    inputSchema: z.strictObject({ key: z.string() }),
    isConcurrencySafe: true,
    call: ({ key }: { key: string }) => `value of ${key}: ${'v'.repeat(2_000)}`,
  }),
);

export interface CachingSessionResult {
  readonly costUsd: number;
  readonly terminal: TerminalEvent;
  readonly requests: number;
}

export async function runCachingSession(options: { readonly turns: number; readonly promptCaching: boolean }): Promise<CachingSessionResult> {
  let n = 0;
  const script = (): ScriptedResponse => {
    const i = n++;
    return i < options.turns - 1
      ? { kind: 'message', blocks: [{ type: 'text', text: `Looking up key ${i}.` }, { type: 'tool_use', name: `tool_${i % 8}`, input: { key: `k${i}` } }] }
      : { kind: 'message', blocks: [{ type: 'text', text: 'All keys looked up.' }] };
  };
  const server = await startScriptedServer({ script, promptCache: true });
  const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-bench', maxRetries: 0 });
  try {
    const events = await lastValueFrom(
      agentLoop({
        model: 'claude-sonnet-4-6',
        system: SYSTEM,
        tools,
        prompt: 'Look up the keys one by one.',
        client,
        promptCaching: options.promptCaching,
        repeatedToolCallLimit: 0,
      }).pipe(toArray()),
    );
    const terminal = events.at(-1) as TerminalEvent;
    return { costUsd: terminal.costUsd, terminal, requests: server.requests.length };
  } finally {
    await client.close();
    await server.close();
  }
}
