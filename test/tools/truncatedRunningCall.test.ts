/**
 * Regression (found by test/reliability/faults.property.test.ts, with a background subagent that
 * was launched and then reported as "not run"): at max_tokens the call in the last block is
 * settled with an error result. A call that had already started (a safe call starts at its
 * block's stop) was told to the model as "so it was not run" although it had run, maybe with
 * effects. Its result now says it had started and was stopped.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { classifyCall } from '../../src/tools/classifyCall.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { truncatedCallText, truncatedStartedCallText } from '../../src/tools/errorTexts.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { createSchedulerState, stepScheduler, type SchedulerCommand, type SchedulerInput } from '../../src/tools/schedulerState.js';

const tool = (name: string, safe: boolean) =>
  defineTool({ name, description: name, inputSchema: z.strictObject({}), isConcurrencySafe: safe, call: () => name });
const registry = createToolRegistry([tool('Read', true), tool('Write', false)]);
const use = (index: number, name: string): SchedulerInput => ({
  type: 'tool_use',
  call: classifyCall({ type: 'tool_use', id: `t${index}`, name, input: {} }, registry),
  blockIndex: index,
});

function resultText(commands: SchedulerCommand[], id: string): unknown {
  for (const c of commands) {
    if (c.type === 'emit' && c.event.type === 'tool_result' && c.event.toolUseId === id) return c.event.result.content;
  }
  return undefined;
}

describe('max_tokens and the last call', () => {
  it('a call that had started is reported as started and stopped, and is stopped', () => {
    const state = createSchedulerState({});
    const started = stepScheduler(state, use(0, 'Read'), 0);
    expect(started.some((c) => c.type === 'start')).toBe(true);
    const settled = stepScheduler(state, { type: 'model_done', stopReason: 'max_tokens' }, 0);
    expect(resultText(settled, 't0')).toBe(truncatedStartedCallText('Read'));
    expect(settled.some((c) => c.type === 'stop')).toBe(true);
    expect(truncatedStartedCallText('Read')).toMatch(/already started and was stopped/);
  });

  it('a call that had not started keeps the "not run" text', () => {
    const state = createSchedulerState({});
    stepScheduler(state, use(0, 'Write'), 0); // unsafe: waits for the model to move on
    const settled = stepScheduler(state, { type: 'model_done', stopReason: 'max_tokens' }, 0);
    expect(resultText(settled, 't0')).toBe(truncatedCallText('Write'));
  });
});
