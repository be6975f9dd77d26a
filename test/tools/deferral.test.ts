/** PreToolUse 'defer' in one call's pipeline and in the scheduler (which knows the response's call count). */
import { describe, expect, it } from 'vitest';
import { from, lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { scheduleTools } from '../../operators/scheduleTools.js';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import type { ToolUseBlock } from '../../src/protocol/content.js';
import { defineTool } from '../../src/tools/defineTool.js';
import type { ToolHooks } from '../../src/tools/hooks.js';
import { runToolCall } from '../../src/tools/runToolCall.js';
import type { ToolEvent } from '../../src/tools/types.js';

const calls: string[] = [];
const tool = defineTool({
  name: 'deploy',
  description: 'deploys',
  inputSchema: z.strictObject({ x: z.string() }),
  isConcurrencySafe: true,
  call: ({ x }) => {
    calls.push(x);
    return `deployed ${x}`;
  },
});
const use = (id: string): ToolUseBlock => ({ type: 'tool_use', id, name: 'deploy', input: { x: id } });
const hooks: ToolHooks = { preToolUse: [() => ({ decision: 'defer', reason: 'later', additionalContext: 'ctx' })] };
type Result = Extract<ToolEvent, { type: 'tool_result' }>;
const resultsOf = (events: ToolEvent[]) => events.filter((e): e is Result => e.type === 'tool_result');

describe('runToolCall and defer', () => {
  it('without mayDefer the deferral is ignored (reported on the result) and the call runs', async () => {
    calls.length = 0;
    const events = await lastValueFrom(runToolCall(use('a'), { tools: [tool], hooks }).pipe(toArray()));
    expect(calls).toEqual(['a']);
    expect(resultsOf(events)[0]).toMatchObject({ deferral: { accepted: false, reason: 'later' }, additionalContext: ['ctx'] });
  });

  it('mayDefer true (sync or async): not run, no tool_start, a placeholder error result flagged accepted', async () => {
    for (const mayDefer of [() => true, () => Promise.resolve(true)]) {
      calls.length = 0;
      const events = await lastValueFrom(runToolCall(use('a'), { tools: [tool], hooks, mayDefer }).pipe(toArray()));
      expect(calls).toEqual([]);
      expect(events.map((e) => e.type)).toEqual(['tool_result']);
      expect(resultsOf(events)[0]).toMatchObject({ deferral: { accepted: true, reason: 'later' }, result: { is_error: true } });
    }
  });

  it('mayDefer throwing counts as false', async () => {
    calls.length = 0;
    const mayDefer = () => {
      throw new Error('boom');
    };
    await lastValueFrom(runToolCall(use('a'), { tools: [tool], hooks, mayDefer }).pipe(toArray()));
    expect(calls).toEqual(['a']);
  });
});

describe('scheduleTools and defer', () => {
  const block = (index: number, id: string): AssemblyOutput => ({ type: 'block', index, block: use(id) });
  const done: AssemblyOutput = { type: 'message_delta', stopReason: 'tool_use', usage: {} } as AssemblyOutput;
  const batchOf = (events: ToolEvent[]) => events.find((e) => e.type === 'tool_batch') as Extract<ToolEvent, { type: 'tool_batch' }>;

  it('one call in the response: the batch names the deferred call', async () => {
    calls.length = 0;
    const events = await lastValueFrom(from([block(0, 'a'), done]).pipe(scheduleTools({ tools: [tool], shared: {}, hooks, allowDefer: true }), toArray()));
    expect(calls).toEqual([]);
    expect(batchOf(events).deferred).toEqual({ toolUseId: 'a', reason: 'later' });
  });

  it('two calls: both run, no deferred batch', async () => {
    calls.length = 0;
    const events = await lastValueFrom(
      from([block(0, 'a'), block(1, 'b'), done]).pipe(scheduleTools({ tools: [tool], shared: {}, hooks, allowDefer: true }), toArray()),
    );
    // 'a' waited for the count (its hook answered before 'b' arrived), so it may run second.
    expect([...calls].sort()).toEqual(['a', 'b']);
    expect(batchOf(events).deferred).toBeUndefined();
    expect(batchOf(events).results.map((r) => [r.tool_use_id, r.is_error === true])).toEqual([
      ['a', false],
      ['b', false],
    ]);
  });

  it('allowDefer off: the call runs', async () => {
    calls.length = 0;
    const events = await lastValueFrom(from([block(0, 'a'), done]).pipe(scheduleTools({ tools: [tool], shared: {}, hooks }), toArray()));
    expect(calls).toEqual(['a']);
    expect(batchOf(events).deferred).toBeUndefined();
  });
});
