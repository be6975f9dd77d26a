/** A real agent tree over HTTP: the child's conversation nests under the parent's Agent call. */
import { afterEach, describe, expect, it } from 'vitest';
import { GENERAL_PURPOSE_AGENT } from '../../src/agents/definitions.js';
import type { ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { allTools, lastAnswer } from '../../src/ui/selectors.js';
import { message, text, toolUse } from '../loop/helpers.js';
import { hasToolResult, noopTool, runTree, systemOf } from '../agents/helpers.js';
import { finalView, tools, transcript } from './helpers.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('subagents in the view', () => {
  it("nests the child's messages and tools under the Agent call; the parent's transcript stays its own", async () => {
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) === GENERAL_PURPOSE_AGENT.prompt) {
        return hasToolResult(request) ? message([text('the answer is 42')]) : message([toolUse('noop', {}, 'toolu_child')]);
      }
      return hasToolResult(request)
        ? message([text('parent done')])
        : message([toolUse('Agent', { description: 'look', prompt: 'find it', subagent_type: 'general-purpose' }, 'toolu_agent')]);
    };
    const run = await runTree(script, { tools: [noopTool] });
    server = run.server;
    const view = finalView(run.events);
    expect(transcript(view)).toEqual(['user: start', 'assistant: [Agent done]', 'assistant: parent done']);
    const agent = tools(view)[0]!;
    expect(agent.subagent).toMatchObject({ agentType: 'general-purpose', depth: 1, background: false });
    const child = agent.subagent!.view;
    expect(transcript(child)).toEqual(['user: find it', 'assistant: [noop done]', 'assistant: the answer is 42']);
    expect(child.terminal?.reason).toBe('completed');
    expect(lastAnswer(view)).toBe('parent done');
    // Subagent events are not progress of the call.
    expect(agent.progress).toEqual([]);
    expect(allTools(view).map((t) => `${t.name}:${t.status}`)).toEqual(['Agent:done', 'noop:done']);
  });
});
