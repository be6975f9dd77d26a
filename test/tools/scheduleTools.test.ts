/** scheduleTools with real (Promise and synchronous) tools: context changes, hooks, ordering. */
import { describe, expect, it } from 'vitest';
import { from, lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { scheduleTools } from '../../operators/scheduleTools.js';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import { defineTool } from '../../src/tools/defineTool.js';
import type { SharedContext, ToolEvent } from '../../src/tools/types.js';

const tu = (index: number, name: string, input: Record<string, unknown>): AssemblyOutput => ({
  type: 'block',
  index,
  block: { type: 'tool_use', id: `t${index}`, name, input },
});
const end: AssemblyOutput = { type: 'message_delta', stopReason: 'tool_use', stopSequence: null, usage: {} };
const batchOf = (events: ToolEvent[]) => {
  const last = events[events.length - 1];
  if (last?.type !== 'tool_batch') throw new Error('no batch last');
  return last;
};

const setVar = defineTool({
  name: 'Set',
  description: 'sets a shared variable',
  inputSchema: z.strictObject({ key: z.string(), value: z.number() }),
  isConcurrencySafe: (input) => input.key.startsWith('safe'),
  call: async ({ key, value }, ctx) => ({
    type: 'outcome' as const,
    output: `saw ${JSON.stringify(ctx.shared)}`,
    contextChange: (shared: SharedContext) => ({ ...shared, [key]: value }),
  }),
});

describe('scheduleTools with real tools', () => {
  it('merges context changes of unsafe tools only, in order; later tools see them', async () => {
    const events = await lastValueFrom(
      from([tu(0, 'Set', { key: 'a', value: 1 }), tu(1, 'Set', { key: 'safe', value: 2 }), tu(2, 'Set', { key: 'b', value: 3 }), end]).pipe(
        scheduleTools({ tools: [setVar], shared: { start: 0 } }),
        toArray(),
      ),
    );
    const batch = batchOf(events);
    expect(batch.shared).toEqual({ start: 0, a: 1, b: 3 });
    expect(batch.results.map((r) => r.content)).toEqual([
      'saw {"start":0}',
      'saw {"start":0,"a":1}',
      'saw {"start":0,"a":1}',
    ]);
  });

  it('carries hook context, stopContinuation and endsTurn into the batch', async () => {
    const finish = defineTool({
      name: 'Finish',
      description: 'ends the turn',
      inputSchema: z.strictObject({}),
      isConcurrencySafe: true,
      call: () => ({ type: 'outcome' as const, output: 'bye', endsTurn: true }),
    });
    const events = await lastValueFrom(
      from([tu(0, 'Finish', {}), tu(1, 'Nope', {}), end]).pipe(
        scheduleTools({
          tools: [finish],
          shared: {},
          hooks: { preToolUse: [({ toolUseId }) => ({ additionalContext: `checked ${toolUseId}`, stopContinuation: { reason: 'policy' } })] },
        }),
        toArray(),
      ),
    );
    const batch = batchOf(events);
    expect(batch.endsTurn).toBe(true);
    expect(batch.stopContinuation).toEqual({ reason: 'policy' });
    expect(batch.additionalContext).toEqual([{ toolUseId: 't0', text: 'checked t0' }]);
    expect(batch.results.map((r) => r.is_error ?? false)).toEqual([false, true]);
  });

  it('a response without tool_use emits nothing', async () => {
    const events = await lastValueFrom(from([end]).pipe(scheduleTools({ tools: [setVar], shared: {} }), toArray()));
    expect(events).toEqual([]);
  });

  it('a batch run inside a synchronous tool of another batch keeps both batches apart', async () => {
    // Both drains are active at once: each must work in its own queue and commands (they are
    // lent from a shared pool, see ToolBatch.dispatch).
    const echo = defineTool({
      name: 'Echo',
      description: 'echoes',
      inputSchema: z.strictObject({ n: z.number() }),
      isConcurrencySafe: true,
      call: ({ n }) => `echo ${n}`,
    });
    const innerEvents: ToolEvent[] = [];
    const nest = defineTool({
      name: 'Nest',
      description: 'runs a batch of its own, synchronously',
      inputSchema: z.strictObject({}),
      isConcurrencySafe: true,
      call: () => {
        from([tu(0, 'Echo', { n: 1 }), tu(1, 'Echo', { n: 2 }), end])
          .pipe(scheduleTools({ tools: [echo], shared: {} }))
          .subscribe((event) => innerEvents.push(event));
        const inner = innerEvents[innerEvents.length - 1];
        return inner?.type === 'tool_batch' ? inner.results.map((r) => r.content).join(',') : 'not done';
      },
    });
    const events = await lastValueFrom(from([tu(0, 'Nest', {}), tu(1, 'Echo', { n: 3 }), end]).pipe(scheduleTools({ tools: [nest, echo], shared: {} }), toArray()));
    expect(batchOf(events).results.map((r) => r.content)).toEqual(['echo 1,echo 2', 'echo 3']);
    expect(events.map((e) => e.type)).toEqual(['tool_start', 'tool_result', 'tool_start', 'tool_result', 'tool_batch']);
    expect(innerEvents.map((e) => e.type)).toEqual(['tool_start', 'tool_result', 'tool_start', 'tool_result', 'tool_batch']);
  });
});
