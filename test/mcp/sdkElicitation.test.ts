/**
 * An MCP server's form elicitation reaching an Agent SDK program, as with Claude Code: the real
 * Claude Agent SDK's `query()` runs the built rxagent; server-everything (stdio, configured
 * through the SDK's `mcpServers`) asks for a form mid-call; rxagent asks the host with an
 * `elicitation` control request; the SDK hands it to the program's `onElicitation`, whose answer
 * goes back to the server. Without `onElicitation` the SDK itself declines.
 */
import type { ElicitationRequest } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, removeSandboxes, resultOf, runQuery } from '../sdk/helpers.js';
import { everythingStdio } from './servers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const TOOL = 'mcp__everything__trigger-elicitation-request';
const script = [
  { kind: 'message' as const, blocks: [{ type: 'tool_use' as const, id: 'toolu_ask', name: TOOL, input: {} }] },
  { kind: 'message' as const, blocks: [{ type: 'text' as const, text: 'thanks' }] },
];

/** The tool_result the model got for the elicitation call (the second request's last message). */
function toolResultText(run: Awaited<ReturnType<typeof runQuery>>): string {
  const second = run.server.requests[1]!.body!;
  return JSON.stringify(second.messages.at(-1)!.content);
}

describe('elicitation through the Agent SDK', () => {
  it("onElicitation gets the server, message and schema; its accepted content reaches the server", { timeout: 120_000 }, async () => {
    const seen: ElicitationRequest[] = [];
    const run = await runQuery(script, 'ask me', {
      mcpServers: { everything: everythingStdio() },
      allowedTools: ['mcp__everything'],
      onElicitation: async (request) => {
        seen.push(request);
        return { action: 'accept', content: { name: 'Grace Hopper', check: true, integer: 9 } };
      },
    });
    expect(run.error).toBeUndefined();
    expect(resultOf(run.messages)[0]).toMatchObject({ subtype: 'success', result: 'thanks' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ serverName: 'everything', message: 'Please provide inputs for the following fields:', mode: 'form' });
    const properties = (seen[0]!.requestedSchema as { properties: Record<string, unknown> }).properties;
    expect(Object.keys(properties)).toEqual(expect.arrayContaining(['name', 'check', 'integer']));
    const text = toolResultText(run);
    expect(text).toContain('Name: Grace Hopper');
    expect(text).toContain('Favorite Integer: 9');
  });

  it('a program without onElicitation: the SDK declines, the server is told, the run goes on', { timeout: 120_000 }, async () => {
    const run = await runQuery(script, 'ask me', { mcpServers: { everything: everythingStdio() }, allowedTools: ['mcp__everything'] });
    expect(run.error).toBeUndefined();
    expect(toolResultText(run)).toContain('User declined to provide the requested information');
    // Declined by the SDK's answer to our control request, not by rxagent's print-mode fallback.
    expect(run.stderr).not.toContain('nobody is there to answer');
  });
});
