/**
 * How full the context window is, for `/context` and the SDK's `get_context_usage`
 * (`query.getContextUsage()`): the conversation's size estimated from its text, and, once a
 * response came, the real size of the last request (its input and cached tokens plus the answer)
 * from the API's usage; the difference is what the system prompt and tool definitions take.
 */
import { modelLimits } from '../../context/models.js';
import { estimateMessagesTokens } from '../../context/tokens.js';
import type { MessageParam, Usage } from '../../protocol/content.js';
import { contextTokensOf } from '../interactive/statusLine.js';

export interface ContextUsage {
  readonly model: string;
  readonly window: number;
  /** The conversation (messages), estimated. */
  readonly messageTokens: number;
  /** The system prompt and tools: known only after a response (null before). */
  readonly otherTokens: number | null;
  readonly totalTokens: number;
  readonly percent: number;
  readonly lastUsage: Usage | undefined;
}

export function contextUsage(run: { readonly model: string; readonly history: readonly MessageParam[] }, lastUsage: Usage | undefined): ContextUsage {
  const window = modelLimits(run.model).contextWindow;
  const messageTokens = estimateMessagesTokens(run.history);
  const measured = lastUsage ? contextTokensOf(lastUsage) : undefined;
  const totalTokens = Math.max(messageTokens, measured ?? 0);
  return {
    model: run.model,
    window,
    messageTokens,
    otherTokens: measured === undefined ? null : totalTokens - messageTokens,
    totalTokens,
    percent: Math.min(100, Math.round((100 * totalTokens) / window)),
    lastUsage,
  };
}

export function contextText(usage: ContextUsage, messages: number): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return [
    `Context of ${usage.model}: about ${n(usage.totalTokens)} of ${n(usage.window)} tokens (${usage.percent}%)`,
    `Messages: ${messages}, about ${n(usage.messageTokens)} tokens`,
    usage.otherTokens === null ? 'System prompt and tools: measured after the first response' : `System prompt and tools: about ${n(usage.otherTokens)} tokens`,
  ].join('\n');
}

/** The SDK's `SDKControlGetContextUsageResponse`, with what rxagent knows (no per-category token counting). */
export function contextUsageResponse(usage: ContextUsage, agents: readonly string[]): Record<string, unknown> {
  const free = Math.max(0, usage.window - usage.totalTokens);
  const u = usage.lastUsage;
  return {
    categories: [
      ...(usage.otherTokens === null ? [] : [{ id: 'system_prompt', name: 'System prompt and tools', tokens: usage.otherTokens, color: 'gray', kind: 'used' }]),
      { id: 'messages', name: 'Messages', tokens: usage.messageTokens, color: 'purple', kind: 'used' },
      { id: 'free_space', name: 'Free space', tokens: free, color: 'promptBorder', kind: 'free' },
    ],
    totalTokens: usage.totalTokens,
    maxTokens: usage.window,
    rawMaxTokens: usage.window,
    percentage: usage.percent,
    gridRows: [],
    model: usage.model,
    memoryFiles: [],
    mcpTools: [],
    agents: agents.map((agentType) => ({ agentType, source: 'rxagent', tokens: 0 })),
    isAutoCompactEnabled: true,
    apiUsage: u
      ? { input_tokens: u.input_tokens ?? 0, output_tokens: u.output_tokens ?? 0, cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0, cache_read_input_tokens: u.cache_read_input_tokens ?? 0 }
      : null,
  };
}
