/**
 * MCP tools reach subagents: `agentLoopWithSubagents({ mcpServers })` connects the servers once
 * for the whole tree, and a child gets the MCP tools through its parent's refresh seam, filtered
 * by its definition's tool list like any other tool. Real HTTP (the scripted model), the fixture
 * MCP server in-process.
 */
import { afterEach, expect, it } from 'vitest';
import { defineAgent } from '../../src/agents/definitions.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { hasToolResult, lastUserText, noopTool, runTree, systemOf, toolNames } from '../agents/helpers.js';
import { message, text, toolUse } from '../loop/helpers.js';
import { linkFixture } from './inProcess.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const CHILD_PROMPT = 'You are the MCP-using child.';
const agentCall = (type: string) => toolUse('Agent', { description: 'use the server', prompt: 'echo something', subagent_type: type }, 'toolu_agent');

/** Parent: one Agent call, then done. Child: one echo call through MCP, then its answer. */
function script(request: MessagesRequest): ScriptedResponse {
  if (systemOf(request) === CHILD_PROMPT) {
    return hasToolResult(request) ? message([text(`child heard: ${lastUserText(request)}`)]) : message([toolUse('mcp__fixture__echo', { text: 'from the child' }, 'toolu_echo')]);
  }
  return hasToolResult(request) ? message([text('parent done')]) : message([agentCall('echoer')]);
}

it('a subagent inherits the MCP tools and calls one; the result comes back to the parent', async () => {
  const fixture = linkFixture();
  const echoer = defineAgent({ name: 'echoer', description: 'echoes', prompt: CHILD_PROMPT });
  const run = await runTree(script, { tools: [noopTool], mcpServers: { fixture: fixture.config }, agents: { definitions: [echoer] } });
  server = run.server;
  const [parentFirst, child] = server.requests.map((r) => r.body!);
  expect(toolNames(parentFirst!)).toEqual(expect.arrayContaining(['noop', 'Agent', 'mcp__fixture__echo']));
  expect(systemOf(child!)).toBe(CHILD_PROMPT);
  expect(toolNames(child!)).toEqual(expect.arrayContaining(['noop', 'mcp__fixture__echo', 'mcp__fixture__slow_progress']));
  await fixture.called('echo');
  expect(lastUserText(server.requests.at(-1)!.body!)).toContain('child heard: from the child');
  expect(run.terminal.reason).toBe('completed');
});

it("a definition's tool list filters the MCP tools too; a listed MCP tool is not a missing tool", async () => {
  const fixture = linkFixture();
  const echoer = defineAgent({ name: 'echoer', description: 'echoes', prompt: CHILD_PROMPT, tools: ['mcp__fixture__echo'] });
  const run = await runTree(script, { tools: [noopTool], mcpServers: { fixture: fixture.config }, agents: { definitions: [echoer] } });
  server = run.server;
  const child = server.requests.map((r) => r.body!).find((b) => systemOf(b) === CHILD_PROMPT)!;
  expect(toolNames(child)).toEqual(['mcp__fixture__echo']);
  expect(run.terminal.reason).toBe('completed');
  expect(lastUserText(server.requests.at(-1)!.body!)).toContain('child heard: from the child');
});
