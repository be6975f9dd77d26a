/** Running an agent tree over real HTTP against the scripted server. */
import { lastValueFrom, tap, toArray } from 'rxjs';
import { z } from 'zod';
import { agentLoopWithSubagents, type AgentTreeOptions } from '../../src/agents/agentTree.js';
import type { LoopEvent, TerminalEvent } from '../../src/loop/types.js';
import type { MessageParam } from '../../src/protocol/content.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { Script } from '../../src/testing/script.js';
import { createMessagesClient } from '../../src/transport/createMessagesClient.js';
import { defineTool } from '../../src/tools/defineTool.js';

export const PARENT_SYSTEM = 'You are the parent agent in a test.';

export function systemOf(request: MessagesRequest): string {
  const s = request.system;
  if (s === undefined) return '';
  return typeof s === 'string' ? s : s.map((b) => b.text).join('');
}

export function lastMessage(request: MessagesRequest): MessageParam {
  return request.messages[request.messages.length - 1]!;
}

/** Every text of the last message, tool_result contents included. */
export function lastUserText(request: MessagesRequest): string {
  const content = lastMessage(request).content;
  if (typeof content === 'string') return content;
  return content
    .map((b) => {
      if (b.type === 'text') return b.text;
      if (b.type === 'tool_result') {
        const c = b.content;
        return typeof c === 'string' ? c : (c ?? []).map((x) => (x.type === 'text' ? x.text : '')).join('');
      }
      return '';
    })
    .join('\n');
}

export const hasToolResult = (request: MessagesRequest): boolean => {
  const content = lastMessage(request).content;
  return Array.isArray(content) && content.some((b) => b.type === 'tool_result');
};

export const toolNames = (request: MessagesRequest): string[] => (request.tools ?? []).map((t) => t.name);

export interface TreeRun {
  readonly events: LoopEvent[];
  readonly terminal: TerminalEvent;
  readonly server: ScriptedServer;
}

/** Starts the server, runs the tree to its end, closes the client (the caller closes the server). */
export async function runTree(
  script: Script,
  options: Partial<AgentTreeOptions> = {},
  hooks: { readonly onEvent?: (e: LoopEvent, server: ScriptedServer) => void } = {},
): Promise<TreeRun> {
  const server = await startScriptedServer({ script });
  const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
  try {
    const events = await lastValueFrom(
      agentLoopWithSubagents({ model: 'claude-sonnet-4-5', system: PARENT_SYSTEM, prompt: 'start', client, ...options }).pipe(
        tap((e) => hooks.onEvent?.(e, server)),
        toArray(),
      ),
    );
    return { events, terminal: events[events.length - 1] as TerminalEvent, server };
  } finally {
    await client.close();
  }
}

/** A tool named `wait` that answers once `event` settles (an event of the test's, not a duration). */
export function waitForTool(event: PromiseLike<unknown>) {
  return defineTool({
    name: 'wait',
    description: 'waits for something',
    inputSchema: z.strictObject({}),
    isConcurrencySafe: true,
    call: async () => {
      await event;
      return 'waited';
    },
  });
}

export const noopTool = defineTool({
  name: 'noop',
  description: 'does nothing',
  inputSchema: z.strictObject({}),
  isConcurrencySafe: true,
  call: () => 'nothing done',
});
