/**
 * Holds a `connectMcpServers` subscription open while a test calls tools, and closes it (waiting
 * for every server to stop) at the end.
 */
import { lastValueFrom, toArray, type Observable } from 'rxjs';
import { connectMcpServers, type ConnectMcpServersOptions, type McpTools } from '../../src/mcp/connectMcpServers.js';
import type { McpServersConfig } from '../../src/mcp/config.js';
import { DEFAULT_MCP_LIMITS, type McpLimits } from '../../src/mcp/limits.js';
import { runToolCall } from '../../src/tools/runToolCall.js';
import type { Tool, ToolEvent } from '../../src/tools/types.js';

export interface Held {
  /** The first value (every server settled). */
  readonly first: Promise<McpTools>;
  latest(): McpTools | undefined;
  /** The next value (after the current one) that satisfies `predicate`. */
  next(predicate: (tools: McpTools) => boolean): Promise<McpTools>;
  /** Unsubscribes and waits until every connection is closed. */
  close(): Promise<void>;
}

export function hold(config: McpServersConfig, options: Omit<ConnectMcpServersOptions, 'limits'> & { limits?: Partial<McpLimits> } = {}): Held {
  const closes: Promise<void>[] = [];
  const source: Observable<McpTools> = connectMcpServers(config, {
    ...options,
    limits: { ...DEFAULT_MCP_LIMITS, connectTimeoutMs: 20_000, ...options.limits },
    onClose: (closed) => void closes.push(closed),
  });
  let latest: McpTools | undefined;
  let waiters: { predicate: (t: McpTools) => boolean; resolve: (t: McpTools) => void }[] = [];
  let resolveFirst!: (t: McpTools) => void;
  let rejectFirst!: (e: unknown) => void;
  const first = new Promise<McpTools>((resolve, reject) => {
    resolveFirst = resolve;
    rejectFirst = reject;
  });
  const subscription = source.subscribe({
    next: (value) => {
      latest = value;
      resolveFirst(value);
      const ready = waiters.filter((w) => w.predicate(value));
      waiters = waiters.filter((w) => !ready.includes(w));
      ready.forEach((w) => w.resolve(value));
    },
    error: rejectFirst,
  });
  return {
    first,
    latest: () => latest,
    next: (predicate) => new Promise((resolve) => waiters.push({ predicate, resolve })),
    close: async () => {
      subscription.unsubscribe();
      await Promise.all(closes);
    },
  };
}

export function toolNamed(tools: McpTools, name: string): Tool {
  const tool = tools.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.tools.map((t) => t.name).join(', ')}`);
  return tool;
}

let nextId = 0;
/** Runs one call through the real tool pipeline (validation, timeout, rendering) and collects its events. */
export function callTool(tools: readonly Tool[], name: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<ToolEvent[]> {
  const block = { type: 'tool_use' as const, id: `toolu_${++nextId}`, name, input };
  return lastValueFrom(runToolCall(block, { tools, ...(signal ? { signal } : {}) }).pipe(toArray()));
}

export function resultOf(events: readonly ToolEvent[]) {
  const result = events.find((e) => e.type === 'tool_result');
  if (!result || result.type !== 'tool_result') throw new Error('no tool_result');
  return result.result;
}
