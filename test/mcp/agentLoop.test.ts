/**
 * `agentLoop({ mcpServers })` over real HTTP (the scripted model on 127.0.0.1) with real MCP
 * servers: the tools are offered and run, a failed server is a warning and the run goes on,
 * list_changed changes the next iteration's tools, and the end of the run stops the servers.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { afterEach, expect, it } from 'vitest';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { AgentLoopOptions } from '../../src/loop/options.js';
import type { LoopEvent } from '../../src/loop/types.js';
import type { Script } from '../../src/testing/script.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { createMessagesClient, type ClosableMessagesClient } from '../../src/transport/createMessagesClient.js';
import { linkFixture } from './inProcess.js';
import { everythingStdio, FIXTURE_SERVER, isAlive } from './servers.js';

let server: ScriptedServer | undefined;
let client: ClosableMessagesClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

async function run(script: Script, options: Partial<AgentLoopOptions>): Promise<LoopEvent[]> {
  server = await startScriptedServer({ script });
  client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-test', retryBaseDelayMs: 1, retryMaxDelayMs: 5 });
  return lastValueFrom(agentLoop({ model: 'claude-scripted', client, prompt: 'go', ...options }).pipe(toArray()));
}

const toolNames = (index: number) => (server!.requests[index]!.body?.tools ?? []).map((t) => t.name);

it('offers the servers tools, runs a call, warns about a failed server and goes on', async () => {
  const events = await run(
    [
      { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_echo', name: 'mcp__everything__echo', input: { message: 'via the loop' } }] },
      { kind: 'message', blocks: [{ type: 'text', text: 'done' }] },
    ],
    { mcpServers: { everything: everythingStdio(), broken: { command: '/nonexistent/server' } } },
  );
  expect(toolNames(0)).toContain('mcp__everything__echo');
  const echo = server!.requests[0]!.body!.tools!.find((t) => t.name === 'mcp__everything__echo')!;
  expect(echo.input_schema).toMatchObject({ type: 'object', required: ['message'] });
  const warning = events.find((e) => e.type === 'warning');
  expect(warning).toMatchObject({ code: 'mcp_server_failed', message: expect.stringContaining('MCP server "broken" failed') });
  const result = events.find((e) => e.type === 'tool_result');
  expect(result).toMatchObject({ result: { tool_use_id: 'toolu_echo', content: 'Echo: via the loop' } });
  expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed' });
});

it('tools/list_changed during an iteration changes the tools of the next one, not the request already sent', async () => {
  const fixture = linkFixture();
  const events = await run(
    [
      { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_add', name: 'mcp__fixture__add_tool', input: {} }] },
      { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_late', name: 'mcp__fixture__late', input: {} }] },
      { kind: 'message', blocks: [{ type: 'text', text: 'done' }] },
    ],
    { mcpServers: { fixture: fixture.config } },
  );
  expect(toolNames(0)).not.toContain('mcp__fixture__late');
  expect(toolNames(1)).toContain('mcp__fixture__late');
  expect(events.filter((e) => e.type === 'tool_result').map((e) => e.type === 'tool_result' && e.result.content)).toEqual(['added', 'late tool ran']);
});

it('the servers are stopped when the run ends', async () => {
  const log = join(mkdtempSync(join(tmpdir(), 'rxagent-mcp-')), 'log');
  await run([{ kind: 'message', blocks: [{ type: 'text', text: 'no tools needed' }] }], {
    mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_LOG: log } } },
  });
  const pid = Number(/pid (\d+)/.exec(readFileSync(log, "utf8"))![1]);
  await expect.poll(() => isAlive(pid), { timeout: 60_000 }).toBe(false);
});
