/** Depth limit, abort of the whole tree, and one cost budget shared down the tree (real HTTP). */
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, GENERAL_PURPOSE_AGENT } from '../../src/agents/definitions.js';
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

const call = (id: string, type: string, background = false) =>
  toolUse('Agent', { description: `${type} job`, prompt: `do the ${type} job`, subagent_type: type, ...(background ? { run_in_background: true } : {}) }, id);
const grand = defineAgent({ name: 'grand', description: 'the grandchild', prompt: 'GRAND agent.' });

describe('depth limit', () => {
  it('a child (level 1) may start a grandchild; the grandchild (level 2 = default max) gets no Agent tool', async () => {
    const script = (request: MessagesRequest): ScriptedResponse => {
      const system = systemOf(request);
      if (system === 'GRAND agent.') return message([text('grand answer')]);
      if (system === GENERAL_PURPOSE_AGENT.prompt) {
        return hasToolResult(request) ? message([text(`child saw: ${lastUserText(request).split('\n')[0]}`)]) : message([call('toolu_g', 'grand')]);
      }
      return hasToolResult(request) ? message([text('top done')]) : message([call('toolu_c', 'general-purpose')]);
    };
    const run = await runTree(script, { tools: [noopTool], agents: { definitions: [grand] } });
    server = run.server;
    const bySystem = (s: string) => server!.requests.filter((r) => systemOf(r.body!) === s);
    expect(toolNames(bySystem(PARENT_SYSTEM)[0]!.body!)).toEqual(['noop', 'Agent']);
    expect(toolNames(bySystem(GENERAL_PURPOSE_AGENT.prompt)[0]!.body!)).toEqual(['noop', 'Agent']);
    expect(toolNames(bySystem('GRAND agent.')[0]!.body!)).toEqual(['noop']);
    expect(lastUserText(bySystem(PARENT_SYSTEM)[1]!.body!)).toMatch(/^child saw: grand answer/);
    // The grandchild's events reach the top wrapped twice, each level naming its own Agent call.
    const nested = run.events.flatMap((e) => {
      const outer = subagentEventOf(e);
      const inner = outer && subagentEventOf(outer.event);
      return outer && inner ? [{ outer, inner }] : [];
    });
    expect(nested.length).toBeGreaterThan(0);
    expect(nested.every(({ outer, inner }) => outer.parentToolUseId === 'toolu_c' && inner.parentToolUseId === 'toolu_g' && inner.agentDepth === 2)).toBe(true);
    expect(server.requests.every((r) => r.validationErrors.length === 0)).toBe(true);
  });

  it('maxDepth 1: children get no Agent tool; maxDepth 0: no subagents at all', async () => {
    const script = (request: MessagesRequest): ScriptedResponse =>
      systemOf(request) === PARENT_SYSTEM && !hasToolResult(request) ? message([call('toolu_c', 'general-purpose')]) : message([text('ok')]);
    const one = await runTree(script, { tools: [noopTool], agents: { maxDepth: 1 } });
    server = one.server;
    expect(server.requests.map((r) => toolNames(r.body!))).toEqual([['noop', 'Agent'], ['noop'], ['noop', 'Agent']]);
    await server.close();
    const zero = await runTree(script, { tools: [noopTool], agents: { maxDepth: 0 } });
    server = zero.server;
    expect(toolNames(server.requests[0]!.body!)).toEqual(['noop']);
    expect(lastUserText(server.requests[1]!.body!)).toContain('There is no tool named `Agent`');
  });

  it("a definition's tools list filters the parent's tools and may leave out the Agent tool", async () => {
    const reader = defineAgent({ name: 'reader', description: 'reads', prompt: 'READER agent.', tools: ['noop'] });
    const script = (request: MessagesRequest): ScriptedResponse =>
      systemOf(request) === PARENT_SYSTEM && !hasToolResult(request) ? message([call('toolu_r', 'reader')]) : message([text('ok')]);
    const run = await runTree(script, { tools: [noopTool], agents: { definitions: [reader] } });
    server = run.server;
    expect(toolNames(server.requests[1]!.body!)).toEqual(['noop']);
  });
});

describe('abort', () => {
  it('aborting the parent cancels foreground and background children; no request follows the abort', async () => {
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) !== PARENT_SYSTEM) return { kind: 'stall' };
      return message([call('toolu_bg', 'general-purpose', true), call('toolu_fg', 'general-purpose')]);
    };
    const controller = new AbortController();
    let abortedAtCount: number | undefined;
    const run = await runTree(
      script,
      { signal: controller.signal },
      {
        onEvent: (e, s) => {
          // Both children's requests are in flight: abort.
          if (abortedAtCount === undefined && e.type === 'tool_result') {
            void s.waitForRequests(3).then(() => {
              abortedAtCount = s.requests.length;
              controller.abort();
            });
          }
        },
      },
    );
    server = run.server;
    expect(abortedAtCount).toBe(3);
    expect(run.terminal.reason).toMatch(/^aborted_/);
    await server.waitForClientClose(1);
    await server.waitForClientClose(2);
    // runTree closed the client once the run ended: no request can be sent after this point, so
    // the count is final (no need to wait and see whether one shows up).
    expect(server.requests).toHaveLength(3);
  });
});

describe('one budget down the tree', () => {
  it('a child that exhausts the shared budget ends budget_exhausted; the parent gets an error result and stops too', async () => {
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) !== PARENT_SYSTEM) {
        // $15/M output: 2000 tokens = $0.03, over the $0.01 cap; the tool call asks for another turn.
        return message([toolUse('noop', {})], { usage: { input_tokens: 10, output_tokens: 2000 } });
      }
      return hasToolResult(request) ? message([text('never asked')]) : message([call('toolu_c', 'general-purpose')], { usage: { input_tokens: 10, output_tokens: 10 } });
    };
    const run = await runTree(script, { tools: [noopTool], maxBudgetUsd: 0.01 });
    server = run.server;
    expect(server.requests.map((r) => systemOf(r.body!))).toEqual([PARENT_SYSTEM, GENERAL_PURPOSE_AGENT.prompt]);
    const result = run.events.find((e) => e.type === 'tool_result' && e.toolUseId === 'toolu_c');
    expect(result?.type === 'tool_result' && result.result.is_error).toBe(true);
    expect(result?.type === 'tool_result' && JSON.stringify(result.result.content)).toContain('stopped with budget_exhausted: the shared cost budget is spent');
    expect(run.terminal.reason).toBe('budget_exhausted');
    // The tree's total: parent (10 in + 10 out) and child (10 in + 2000 out) at $3/$15 per M.
    expect(run.terminal.costUsd).toBeCloseTo((20 * 3 + 2010 * 15) / 1e6, 9);
  });
});
