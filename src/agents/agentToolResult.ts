/**
 * The Agent tool's result as data for programs (stream-json's `tool_use_result`, PostToolUse's
 * `tool_response`), in the shape of Claude Code's `AgentOutput` (the SDK's `sdk-tools.d.ts`) for a
 * foreground child that completed: its answer as text content, how many tools it called and
 * which, its duration, tokens and usage, and the prompt it was given. The model still reads the
 * rendered answer with the usage line; this is never sent to it.
 *
 * A tally watches the child's own events (a grandchild's arrive wrapped in the child's progress
 * and count for the grandchild, as in Claude Code, where each agent reports its own calls).
 * `totalTokens` is the child's whole usage (input, output, cache writes and reads of every
 * response); the API fields rxagent does not track (`service_tier`, `server_tool_use`,
 * `cache_creation`) are null, which the type allows.
 */
import type { LoopEvent } from '../loop/types.js';
import type { AgentToolOutput } from './agentTool.js';

export interface AgentToolResult {
  readonly status: 'completed';
  readonly agentId: string;
  readonly agentType: string;
  readonly content: Array<{ readonly type: 'text'; readonly text: string }>;
  readonly totalToolUseCount: number;
  readonly totalDurationMs: number;
  readonly totalTokens: number;
  readonly usage: {
    readonly input_tokens: number;
    readonly output_tokens: number;
    readonly cache_creation_input_tokens: number;
    readonly cache_read_input_tokens: number;
    readonly server_tool_use: null;
    readonly service_tier: null;
    readonly cache_creation: null;
  };
  readonly toolsUsed: string[];
  readonly prompt: string;
}

export interface ChildTally {
  /** Sees each of the child's own events. */
  observe(event: LoopEvent): void;
  /** The structured result of the child's completed output. */
  result(output: AgentToolOutput & { readonly status: 'completed' }, prompt: string): AgentToolResult;
}

export function createChildTally(): ChildTally {
  let toolUses = 0;
  const toolsUsed = new Set<string>();
  let durationMs = 0;
  return {
    observe: (event) => {
      if (event.type === 'tool_result') {
        toolUses += 1;
        toolsUsed.add(event.name);
      } else if (event.type === 'terminal') durationMs = event.durationMs;
    },
    result: (output, prompt) => {
      const u = output.usage;
      return {
        status: 'completed',
        agentId: output.agentId,
        agentType: output.agentType,
        content: [{ type: 'text', text: output.answer }],
        totalToolUseCount: toolUses,
        totalDurationMs: Math.round(durationMs),
        totalTokens: u.inputTokens + u.outputTokens + u.cacheCreationInputTokens + u.cacheReadInputTokens,
        usage: {
          input_tokens: u.inputTokens,
          output_tokens: u.outputTokens,
          cache_creation_input_tokens: u.cacheCreationInputTokens,
          cache_read_input_tokens: u.cacheReadInputTokens,
          server_tool_use: null,
          service_tier: null,
          cache_creation: null,
        },
        toolsUsed: [...toolsUsed],
        prompt,
      };
    },
  };
}
