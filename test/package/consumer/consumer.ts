// A consumer of the packed rxagent, compiled with tsc --strict against rxjs 7.8.1 and zod 4.1
// (older than the versions rxagent is developed with, inside its peer ranges), then run.
import { filter, from, lastValueFrom, map, toArray } from 'rxjs';
import { z } from 'zod';
import { agentLoop, createMessagesClient, defineTool, isTerminalEvent, type LoopEvent, type MessageParam, type TextBlock, type ToolResultBlock } from 'rxagent';
import { ofLoopType, textDeltas } from 'rxagent/operators';
import { createBuiltinTools, createWorkspace } from 'rxagent/tools';
import { modelLimits } from 'rxagent/context';
import { createJsonlSessionStore } from 'rxagent/session';
import { PERMISSION_MODES } from 'rxagent/permissions';
import { HOOK_EVENTS } from 'rxagent/hooks';
import { startScriptedServer } from 'rxagent/testing';

const server = await startScriptedServer({
  script: [
    { kind: 'message', blocks: [{ type: 'tool_use', name: 'add', input: { a: 2, b: 3 } }] },
    { kind: 'message', blocks: [{ type: 'text', text: 'The sum is 5.', chunkSize: 4 }] },
  ],
});
const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-test' });
const add = defineTool({
  name: 'add',
  description: 'Add two numbers.',
  inputSchema: z.strictObject({ a: z.number(), b: z.number() }),
  isConcurrencySafe: true,
  call: ({ a, b }) => String(a + b),
});

const events = await lastValueFrom(
  agentLoop({ model: 'claude-sonnet-4-5', client, tools: [add], prompt: 'What is 2 + 3?' }).pipe(toArray()),
);
const text = await lastValueFrom(from(events).pipe(textDeltas(), toArray(), map((parts) => parts.join(''))));
const results: readonly ToolResultBlock[] = events.flatMap((e) => (e.type === 'tool_result' ? [e.result] : []));
const terminal = await lastValueFrom(from(events).pipe(filter((e: LoopEvent) => isTerminalEvent(e))));
const starts = await lastValueFrom(from(events).pipe(ofLoopType('tool_start'), map((e) => e.name), toArray()));
// Readonly block lists go into a user message as they are, no copy.
const next: MessageParam = { role: 'user', content: results };
const block: TextBlock = { type: 'text', text };
// @ts-expect-error the block types are exact: a misspelt field does not compile
void block.txet;
console.log(`text: ${block.text}`);
console.log(`tools: ${starts.join(',')} results: ${next.content.length}`);
console.log(`terminal: ${terminal.reason}`);
const workspace = createWorkspace({ cwd: process.cwd() });
console.log(`sub-paths: ${createBuiltinTools(workspace).length} ${modelLimits('claude-sonnet-4-5').contextWindow > 0} ${typeof createJsonlSessionStore} ${PERMISSION_MODES.length > 0} ${HOOK_EVENTS.length > 0}`);
await client.close();
await server.close();
