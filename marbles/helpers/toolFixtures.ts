/**
 * Fixtures for scheduleTools marble tests: assembly events in one-letter form and tools whose
 * `call` returns the cold Observable the test hands in, keyed by the call's `key` input.
 */
import { map, type Observable, type OperatorFunction } from 'rxjs';
import { z } from 'zod';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import type { StopReason } from '../../src/protocol/content.js';
import { defineTool } from '../../src/tools/defineTool.js';
import type { InterruptBehavior, Tool, ToolEvent, ToolYield } from '../../src/tools/types.js';

export const blockStart = (index: number, type: 'text' | 'tool_use' = 'text'): AssemblyOutput =>
  type === 'text'
    ? { type: 'block_start', index, block: { type: 'text', text: '' } }
    : { type: 'block_start', index, block: { type: 'tool_use', id: `t${index}`, name: 'x', input: {} } };

/** A completed tool_use block at content index `index`, id `t<index>`. */
export const toolUse = (index: number, name: string, key: string): AssemblyOutput => ({
  type: 'block',
  index,
  block: { type: 'tool_use', id: `t${index}`, name, input: { key } },
});

export const messageDelta = (stopReason: StopReason): AssemblyOutput => ({
  type: 'message_delta',
  stopReason,
  stopSequence: null,
  usage: {},
});

export const outcome = (output: string): ToolYield<string> => ({ type: 'outcome', output });

/** A tool whose call for input `{ key }` returns `calls[key]`. */
export function fakeTool(
  name: string,
  options: { safe: boolean; interrupt?: InterruptBehavior; calls: Record<string, Observable<ToolYield<string>>> },
): Tool {
  return defineTool({
    name,
    description: `fake ${name}`,
    inputSchema: z.strictObject({ key: z.string() }),
    isConcurrencySafe: options.safe,
    interruptBehavior: options.interrupt ?? 'block',
    call: ({ key }) => {
      const call = options.calls[key];
      if (!call) throw new Error(`no cold observable for key ${key}`);
      return call;
    },
  });
}

/** Events as short labels: `S0` start of t0, `R0` result of t0, `E0` error result, `B:0,1` batch. */
export function label(event: ToolEvent): string {
  switch (event.type) {
    case 'tool_start':
      return `S${event.toolUseId.slice(1)}`;
    case 'tool_progress':
      return `P${event.toolUseId.slice(1)}`;
    case 'tool_result':
      return `${event.result.is_error ? 'E' : 'R'}${event.toolUseId.slice(1)}`;
    case 'tool_batch':
      return `B:${event.results.map((r) => `${r.is_error ? 'E' : 'R'}${r.tool_use_id.slice(1)}`).join(',')}`;
  }
}

export const labels: OperatorFunction<ToolEvent, string> = map(label);

export const message = (stopReason: StopReason): AssemblyOutput => ({
  type: 'message',
  message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: stopReason, usage: {} },
});

export const textDelta = (index: number): AssemblyOutput => ({ type: 'text_delta', index, text: 'x' });

/** Labels stamped with the virtual frame they were emitted in: `"5 R0"`. */
export function stamped(now: () => number): OperatorFunction<ToolEvent, string> {
  return map((event) => `${now()} ${label(event)}`);
}
