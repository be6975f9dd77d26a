/**
 * MCP timing in virtual time: the servers' tool list arrives as a hot stream of `McpTools`
 * (as `connectMcpServers` emits it: `r` = a server said list_changed and is re-listing, `b` = the
 * new list); the loop takes it through the tool-refresh seam. A tool reporting progress stands
 * for an MCP call (the adapter's progress mapping is tested against real servers in test/mcp).
 * Letters: i iteration_start, s tool_start, p tool_progress, r tool_result, a assistant_message,
 * T terminal.
 */
import { describe, expect, it } from 'vitest';
import { filter, map, type Observable } from 'rxjs';
import { z } from 'zod';
import { agentLoop } from '../src/loop/agentLoop.js';
import type { CallModel } from '../src/loop/options.js';
import type { LoopEvent } from '../src/loop/types.js';
import type { McpTools } from '../src/mcp/connectMcpServers.js';
import { createMcpToolSet } from '../src/mcp/toolSet.js';
import { defineTool } from '../src/tools/defineTool.js';
import type { Tool, ToolYield } from '../src/tools/types.js';
import type { TransportOutput } from '../src/transport/types.js';
import { message, text, toolUse } from '../test/loop/helpers.js';
import type { RunHelpers } from 'rxjs/testing';
import { coldModel, replyMarble } from '../src/testing/index.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const LETTER: Partial<Record<LoopEvent['type'], string>> = {
  iteration_start: 'i',
  tool_start: 's',
  tool_progress: 'p',
  tool_result: 'r',
  assistant_message: 'a',
  terminal: 'T',
};
const letters = (events$: Observable<LoopEvent>) =>
  events$.pipe(
    filter((e) => LETTER[e.type] !== undefined),
    map((e) => LETTER[e.type]!),
  );
const L = Object.fromEntries(Object.values(LETTER).map((l) => [l, l]));

/** An "MCP" tool whose call is a cold stream: progress, progress, outcome. */
function progressTool(name: string, cold: RunHelpers['cold'], marble = '-p-p-(o|)'): Tool {
  return defineTool({
    name,
    description: name,
    inputSchema: z.strictObject({}),
    isConcurrencySafe: true,
    call: () =>
      cold<ToolYield<string>>(marble, {
        p: { type: 'progress', data: { type: 'mcp_progress', progress: 1 } },
        o: { type: 'outcome', output: `${name} done` },
      }),
  });
}

const mcpTools = (tools: readonly Tool[], refreshing = false): McpTools => ({
  tools,
  prompts: [],
  servers: [{ name: 's', status: 'connected' }],
  skippedTools: [],
  pids: [],
  refreshing,
});

const namesOf = (request: { tools?: readonly { name: string }[] } | undefined) => (request?.tools ?? []).map((t) => t.name);

/** The loop starts once the servers' first list is in (as `agentLoop({ mcpServers })` does); `changes$` follow. */
function loopWith(callModel: CallModel, first: McpTools, changes$: Observable<McpTools>) {
  const toolSet = createMcpToolSet();
  toolSet.update(first);
  changes$.subscribe((tools) => toolSet.update(tools));
  return agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', refreshTools: toolSet.refresh, deps: { callModel } });
}

describe('MCP tools and the loop, in virtual time', () => {
  it('progress is drained while the model still streams; a list_changed during the call is waited for before the next request', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, flush }) => {
      const x = progressTool('mcp__s__x', cold);
      const y = progressTool('mcp__s__y', cold);
      const first = replyMarble({ ...message([toolUse('mcp__s__x', {})]), endDelayMs: 9 }); // block stop at 3, end at 13
      const second = replyMarble(message([text('done')]), { frame: 0 });
      const { callModel, requests } = coldModel(cold<TransportOutput>(first.marbles, first.values), cold<TransportOutput>(second.marbles, second.values));
      // r at 5 (during the call): re-listing; b at 20, after the response ended at 13.
      const mcp$ = hot('-----r--------------b', { r: mcpTools([x], true), b: mcpTools([x, y]) });
      //                                 the call: start at 3, progress at 4 and 6, result at 8; the
      //                                 response ends at 13; the next iteration waits for b at 20.
      expectObservable(letters(loopWith(callModel, mcpTools([x]), mcp$))).toBe('i--sp-p-r----a------(iaT|)', L);
      flush();
      expect(requests.map(namesOf)).toEqual([['mcp__s__x'], ['mcp__s__x', 'mcp__s__y']]);
    });
  });

  it('a change while a request streams reaches the next request, never that one', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, hot, flush }) => {
      const x = progressTool('mcp__s__x', cold, '-(o|)');
      const y = progressTool('mcp__s__y', cold, '-(o|)');
      const call = (name: string) => replyMarble({ ...message([toolUse(name, {})]), endDelayMs: 5 }); // end at 9
      const done = replyMarble(message([text('done')]), { frame: 0 });
      const m1 = cold<TransportOutput>(call('mcp__s__x').marbles, call('mcp__s__x').values);
      const m2 = cold<TransportOutput>(call('mcp__s__x').marbles, call('mcp__s__x').values);
      const m3 = cold<TransportOutput>(done.marbles, done.values);
      const model = coldModel(m1, m2, m3);
      const sentAt: number[] = [];
      const callModel: CallModel = (request, options) => {
        sentAt.push(scheduler.now());
        return model.callModel(request, options);
      };
      // Request 2 is sent at 9 and streams until 18; the list changes at 11 and 12, meanwhile.
      const mcp$ = hot('-----------rb', { r: mcpTools([x], true), b: mcpTools([x, y]) });
      const ended: string[] = [];
      loopWith(callModel, mcpTools([x]), mcp$).subscribe((e) => e.type === 'terminal' && ended.push(e.reason));
      flush();
      expect(sentAt).toEqual([0, 9, 18]);
      expect(model.requests.map(namesOf)).toEqual([['mcp__s__x'], ['mcp__s__x'], ['mcp__s__x', 'mcp__s__y']]);
      expect(ended).toEqual(['completed']);
    });
  });

  it('a server that dies while re-listing: its tools leave and the loop goes on (no wait forever)', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, flush }) => {
      const x = progressTool('mcp__s__x', cold, '-(o|)');
      const first = replyMarble({ ...message([toolUse('mcp__s__x', {})]), endDelayMs: 5 });
      const second = replyMarble(message([text('done')]), { frame: 0 });
      const { callModel, requests } = coldModel(cold<TransportOutput>(first.marbles, first.values), cold<TransportOutput>(second.marbles, second.values));
      const gone: McpTools = { ...mcpTools([]), servers: [{ name: 's', status: 'failed', error: 'closed' }] };
      const mcp$ = hot('----r-------f', { r: mcpTools([x], true), f: gone });
      expectObservable(letters(loopWith(callModel, mcpTools([x]), mcp$))).toBe('i--sr----a--(iaT|)', L);
      flush();
      expect(requests.map(namesOf)).toEqual([['mcp__s__x'], []]);
    });
  });

  it('unsubscribing while the next iteration waits for a re-listing sends no request (cold, nothing left running)', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, flush }) => {
      const x = progressTool('mcp__s__x', cold, '-(o|)');
      const first = replyMarble({ ...message([toolUse('mcp__s__x', {})]), endDelayMs: 5 });
      const { callModel, requests } = coldModel(cold<TransportOutput>(first.marbles, first.values));
      const mcp$ = hot('----r', { r: mcpTools([x], true) });
      expectObservable(letters(loopWith(callModel, mcpTools([x]), mcp$)), '^ 30ms !').toBe('i--sr----a', L);
      flush();
      expect(requests).toHaveLength(1);
    });
  });
});
