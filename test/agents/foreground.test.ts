/** Foreground subagents over real HTTP: the child's answer is the parent's tool result. */
import { afterEach, describe, expect, it } from 'vitest';
import { GENERAL_PURPOSE_AGENT, defineAgent } from '../../src/agents/definitions.js';
import { subagentEventOf } from '../../src/agents/events.js';
import type { ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { message, text, toolUse } from '../loop/helpers.js';
import { hasToolResult, lastUserText, noopTool, PARENT_SYSTEM, runTree, systemOf, toolNames } from './helpers.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const agentCall = (id: string, type: string, extra: Record<string, unknown> = {}) =>
  toolUse('Agent', { description: 'look it up', prompt: `task for ${type}`, subagent_type: type, ...extra }, id);

describe('foreground subagent', () => {
  it("returns the child's final answer as the parent's tool result, with the child's events marked by the call id", async () => {
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) === GENERAL_PURPOSE_AGENT.prompt) return message([text('the answer is 42')]);
      return hasToolResult(request) ? message([text('parent done')]) : message([agentCall('toolu_fg', 'general-purpose')]);
    };
    const run = await runTree(script, { tools: [noopTool] });
    server = run.server;
    const requests = server.requests;
    expect(requests.map((r) => r.validationErrors)).toEqual([[], [], []]);
    expect(requests.map((r) => systemOf(r.body!))).toEqual([PARENT_SYSTEM, GENERAL_PURPOSE_AGENT.prompt, PARENT_SYSTEM]);
    // The child got its own conversation: only the task, no parent history (the cache breakpoint on its last block).
    expect(requests[1]!.body!.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'task for general-purpose', cache_control: { type: 'ephemeral' } }] }]);
    // Its tools: the parent's plus the Agent tool (depth 1 < default max depth 2).
    expect(toolNames(requests[1]!.body!)).toEqual(['noop', 'Agent']);
    const result = lastUserText(requests[2]!.body!);
    expect(result).toMatch(/^the answer is 42\n\n\[subagent general-purpose agent-[0-9a-f]{8}: completed, 1 turn, \d+ input \+ \d+ output tokens, \$\d+\.\d{4}\]$/);

    expect(run.terminal.reason).toBe('completed');
    expect(run.terminal.lastAssistantText).toBe('parent done');
    const childEvents = run.events.flatMap((e) => {
      const data = subagentEventOf(e);
      return data ? [data] : [];
    });
    expect(childEvents.length).toBeGreaterThan(3);
    expect(new Set(childEvents.map((d) => d.parentToolUseId))).toEqual(new Set(['toolu_fg']));
    expect(childEvents.every((d) => d.agentDepth === 1 && !d.background && d.agentType === 'general-purpose')).toBe(true);
    const childTerminal = childEvents.find((d) => d.event.type === 'terminal')!.event;
    expect(childTerminal.type === 'terminal' && childTerminal.reason).toBe('completed');
    // The tree's cost is the parent's two responses plus the child's subtree.
    const parentOwn = run.events.filter((e) => e.type === 'assistant_message');
    expect(parentOwn).toHaveLength(2);
    if (childTerminal.type !== 'terminal') throw new Error('unreachable');
    expect(childTerminal.costUsd).toBeGreaterThan(0);
    expect(run.terminal.costUsd).toBeGreaterThan(childTerminal.costUsd);
  });

  it("a child's failure is an error result for the parent, which goes on", async () => {
    const reviewer = defineAgent({ name: 'reviewer', description: 'reviews', prompt: 'You review things.' });
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) === 'You review things.') return { kind: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'nope' };
      return hasToolResult(request) ? message([text('recovered')]) : message([agentCall('toolu_bad', 'reviewer')]);
    };
    const run = await runTree(script, { agents: { definitions: [reviewer] } });
    server = run.server;
    const result = run.events.find((e) => e.type === 'tool_result');
    expect(result?.type === 'tool_result' && result.result.is_error).toBe(true);
    expect(lastUserText(server.requests[2]!.body!)).toMatch(/subagent reviewer \(agent-[0-9a-f]{8}\) stopped with api_error/);
    expect(run.terminal.reason).toBe('completed');
    expect(run.terminal.lastAssistantText).toBe('recovered');
    expect(server.requests.every((r) => r.validationErrors.length === 0)).toBe(true);
  });

  it('an unknown subagent_type is refused before anything starts, naming the known types', async () => {
    const script = (request: MessagesRequest): ScriptedResponse =>
      hasToolResult(request) ? message([text('ok')]) : message([agentCall('toolu_x', 'nobody')]);
    const run = await runTree(script);
    server = run.server;
    expect(server.requests).toHaveLength(2);
    expect(lastUserText(server.requests[1]!.body!)).toContain('There is no subagent type `nobody`. Use one of: `general-purpose`.');
  });

  it("tags the child's model calls with querySource agent:<name> and writes its records to its own transcript sink", async () => {
    const { startScriptedServer } = await import('../../src/testing/scriptedServer.js');
    const { createMessagesClient } = await import('../../src/transport/createMessagesClient.js');
    const { lastValueFrom, toArray } = await import('rxjs');
    const { agentLoopWithSubagents } = await import('../../src/agents/agentTree.js');
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) === GENERAL_PURPOSE_AGENT.prompt) return message([text('child says hi')]);
      return hasToolResult(request) ? message([text('ok')]) : message([agentCall('toolu_q', 'general-purpose')]);
    };
    server = await startScriptedServer({ script });
    const real = createMessagesClient({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 });
    const sources: (string | undefined)[] = [];
    const client = { stream: (...args: Parameters<typeof real.stream>) => (sources.push(args[1]?.querySource), real.stream(...args)) };
    const childRecords: string[] = [];
    try {
      await lastValueFrom(
        agentLoopWithSubagents({
          model: 'claude-sonnet-4-5',
          system: PARENT_SYSTEM,
          prompt: 'go',
          client,
          agents: {
            transcriptFor: (child) => ({
              append: async (records) => {
                for (const r of records) childRecords.push(`${child.agentType}:${r.type}`);
              },
            }),
          },
        }).pipe(toArray()),
      );
    } finally {
      await real.close();
    }
    expect(sources).toEqual([undefined, 'agent:general-purpose', undefined]);
    expect(childRecords).toEqual(['general-purpose:user', 'general-purpose:assistant']);
  });
});
