/** The scheduler's decisions, table-driven, without RxJS. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { classifyCall } from '../../src/tools/classifyCall.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { createSchedulerState, stepReadsClock, stepScheduler, type SchedulerCommand, type SchedulerInput } from '../../src/tools/schedulerState.js';

const tool = (name: string, safe: boolean, interrupt: 'cancel' | 'block' = 'block') =>
  defineTool({ name, description: name, inputSchema: z.strictObject({}), isConcurrencySafe: safe, interruptBehavior: interrupt, call: () => name });
const registry = createToolRegistry([tool('Read', true, 'cancel'), tool('Write', false), tool('Fetch', true, 'block')]);
const use = (index: number, name: string): SchedulerInput => ({
  type: 'tool_use',
  call: classifyCall({ type: 'tool_use', id: `t${index}`, name, input: {} }, registry),
  blockIndex: index,
});
const brief = (commands: SchedulerCommand[]) =>
  commands.map((c) => {
    switch (c.type) {
      case 'start':
        return `start t${c.call.blockIndex}`;
      case 'stop':
        return `stop #${c.key}`;
      case 'emit':
        return c.event.type === 'tool_result' ? `${c.event.result.is_error ? 'error' : 'result'} ${c.event.toolUseId}` : c.event.type;
      default:
        return c.type === 'interruptible' ? `interruptible ${c.value}` : c.type;
    }
  });
const result = (key: number, id: string): SchedulerInput => ({
  type: 'tool_event',
  key,
  event: { type: 'tool_result', toolUseId: id, name: 'x', result: { type: 'tool_result', tool_use_id: id, content: 'ok' }, endsTurn: false, durationMs: 0 },
});

const SCENARIOS: [string, SchedulerInput[], string[][]][] = [
    [
      'safe calls start at once, the batch ends with the source',
      [use(0, 'Read'), use(1, 'Read'), result(1, 't1'), result(0, 't0'), { type: 'source_complete' }],
      [['arm_batch_timeout', 'start t0'], ['start t1'], ['result t1', 'stop #1'], ['result t0', 'stop #0'], ['tool_batch', 'complete']],
    ],
    [
      'an unsafe call waits for the model to move on and for the running call',
      [use(0, 'Read'), use(1, 'Write'), { type: 'block_start', index: 2 }, result(0, 't0'), result(1, 't1')],
      [['arm_batch_timeout', 'start t0'], [], [], ['result t0', 'stop #0', 'start t1', 'interruptible false'], ['result t1', 'stop #1', 'interruptible true']],
    ],
    [
      'max_tokens settles the last call without running it',
      [use(0, 'Write'), { type: 'model_done', stopReason: 'max_tokens' }, { type: 'source_complete' }],
      [['arm_batch_timeout'], ['error t0'], ['tool_batch', 'complete']],
    ],
    [
      'interrupt: cancel-calls stop, block-calls finish, queued ones never start',
      [use(0, 'Read'), use(1, 'Fetch'), use(2, 'Write'), { type: 'interrupt' }, result(1, 't1')],
      [['arm_batch_timeout', 'start t0'], ['start t1', 'interruptible false'], [], ['error t0', 'stop #0', 'error t2'], ['result t1', 'stop #1', 'tool_batch', 'complete']],
    ],
    [
      'late events of a stopped call are ignored',
      [use(0, 'Read'), { type: 'abort' }, result(0, 't0')],
      [['arm_batch_timeout', 'start t0'], ['error t0', 'stop #0', 'tool_batch', 'complete'], []],
    ],
];

describe('stepScheduler', () => {
  it.each(SCENARIOS)('%s', (_name, inputs, expected) => {
    const state = createSchedulerState({});
    expect(inputs.map((input) => brief(stepScheduler(state, input, 0)))).toEqual(expected);
  });

  // The shell reads the clock only for the steps that use it: NaN for the others would show
  // in every duration and start time the step produced.
  it.each(SCENARIOS)('stepReadsClock: a step it says reads no clock gives the same commands without one (%s)', (_name, inputs) => {
    const clocked = createSchedulerState({});
    const unclocked = createSchedulerState({});
    for (const [i, input] of inputs.entries()) {
      const now = 1000 + 7 * i;
      const expected = stepScheduler(clocked, input, now);
      expect(stepScheduler(unclocked, input, stepReadsClock(unclocked, input) ? now : Number.NaN)).toEqual(expected);
      expect(unclocked).toEqual(clocked);
    }
  });
});
