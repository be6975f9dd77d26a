/**
 * What the scheduler must know about a call before starting it: the tool, the parsed input,
 * whether it is concurrency-safe and how it reacts to an interrupt. Parsing happens here once;
 * `runToolCall` reuses the result (steps 1, 3 and 4 do not parse again).
 */
import type { z } from 'zod';
import { isInvalidToolUse, type InvalidToolUseBlock } from '../assembly/types.js';
import type { ToolUseBlock } from '../protocol/content.js';
import type { ToolRegistry } from './registry.js';
import type { InterruptBehavior, Tool } from './types.js';

/** One tool_use block with everything the scheduler needs to start it, its input parsed once. */
export interface ClassifiedCall {
  readonly block: ToolUseBlock | InvalidToolUseBlock;
  readonly tool: Tool | undefined;
  /** `undefined` when there is no tool, the input was not JSON, or the schema threw. */
  readonly parsed: z.ZodSafeParseResult<unknown> | undefined;
  readonly parseError?: unknown;
  readonly concurrencySafe: boolean;
  readonly interruptBehavior: InterruptBehavior;
}

/**
 * A call that will fail before reaching any hook or tool (unknown tool, not JSON, schema
 * mismatch) has no side effects, so it is classified safe and cancellable: it never waits for
 * the model to move on and never blocks an interrupt. `isConcurrencySafe` or
 * `interruptBehavior` throwing counts as unsafe / 'block' (the cautious answers).
 */
export function classifyCall(block: ToolUseBlock | InvalidToolUseBlock, registry: ToolRegistry): ClassifiedCall {
  const tool = registry.byName.get(block.name);
  if (!tool || isInvalidToolUse(block)) {
    return { block, tool, parsed: undefined, concurrencySafe: true, interruptBehavior: 'cancel' };
  }
  let parsed: z.ZodSafeParseResult<unknown>;
  try {
    parsed = tool.inputSchema.safeParse(block.input);
  } catch (parseError) {
    // e.g. an async refinement: let the pipeline report it; run it cautiously.
    return { block, tool, parsed: undefined, parseError, concurrencySafe: false, interruptBehavior: 'block' };
  }
  if (!parsed.success) {
    return { block, tool, parsed, concurrencySafe: true, interruptBehavior: 'cancel' };
  }
  return {
    block,
    tool,
    parsed,
    concurrencySafe: safety(tool, parsed.data),
    interruptBehavior: interruptOf(tool, parsed.data),
  };
}

function safety(tool: Tool, input: unknown): boolean {
  if (typeof tool.isConcurrencySafe === 'boolean') return tool.isConcurrencySafe;
  try {
    return tool.isConcurrencySafe(input) === true;
  } catch {
    return false;
  }
}

function interruptOf(tool: Tool, input: unknown): InterruptBehavior {
  const behavior = tool.interruptBehavior;
  if (typeof behavior !== 'function') return behavior ?? 'block';
  try {
    return behavior(input) === 'cancel' ? 'cancel' : 'block';
  } catch {
    return 'block';
  }
}
