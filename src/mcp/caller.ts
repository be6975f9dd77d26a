/**
 * `tools/call` with progress that keeps its order. The SDK hands notifications to their handlers
 * a microtask late but settles responses at once, so the last `notifications/progress` before a
 * result would be dropped as "unknown token" (seen with server-everything over stdio). We give
 * each call our own progress token and read progress notifications off the transport as they
 * arrive, in order, before the SDK sees them.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface McpProgressUpdate {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export interface McpCallOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly onProgress: (update: McpProgressUpdate) => void;
  /** The loop's id of the call and the tool's name as the model knows it (its trace context is looked up by them). */
  readonly toolUseId?: string;
  readonly toolName?: string;
}

/** The W3C `traceparent` of a tool call's span, when the run is traced (see `createMcpCaller`). */
export type TraceparentFor = (toolUseId: string, toolName: string) => string | undefined;

/** What a tool adapter needs: one call. Implemented over an SDK client by `createMcpCaller`. */
export interface McpCaller {
  callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult>;
}

let tokens = 0;

/**
 * A caller over a connected client. `transport` must be the one the client is connected to;
 * the progress route is installed on it here (after `client.connect`).
 */
export function createMcpCaller(client: Pick<Client, 'callTool'>, transport: Transport, traceparentFor?: TraceparentFor): McpCaller {
  const routes = new Map<string, (update: McpProgressUpdate) => void>();
  const forward = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const route = progressRouteOf(message, routes);
    if (route) route.deliver(route.update);
    else forward?.(message, extra);
  };
  return {
    async callTool(name, args, { signal, timeoutMs, onProgress, toolUseId, toolName }) {
      const progressToken = `rxagent-${++tokens}`;
      routes.set(progressToken, onProgress);
      // The call's trace context, where OpenTelemetry's MCP conventions put it (`params._meta`);
      // an HTTP transport also sends it as the `traceparent` header (transports.ts).
      const traceparent = toolUseId === undefined ? undefined : traceparentFor?.(toolUseId, toolName ?? name);
      try {
        const _meta = { progressToken, ...(traceparent ? { traceparent } : {}) };
        const result = await client.callTool({ name, arguments: args, _meta }, undefined, { signal, timeout: timeoutMs });
        return result as CallToolResult;
      } finally {
        routes.delete(progressToken);
      }
    },
  };
}

function progressRouteOf(
  message: unknown,
  routes: ReadonlyMap<string, (update: McpProgressUpdate) => void>,
): { deliver: (update: McpProgressUpdate) => void; update: McpProgressUpdate } | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const m = message as { method?: unknown; id?: unknown; params?: Record<string, unknown> };
  if (m.method !== 'notifications/progress' || m.id !== undefined || !m.params) return undefined;
  const { progressToken, progress, total, message: text } = m.params;
  const deliver = typeof progressToken === 'string' ? routes.get(progressToken) : undefined;
  if (!deliver || typeof progress !== 'number') return undefined;
  return {
    deliver,
    update: {
      progress,
      ...(typeof total === 'number' ? { total } : {}),
      ...(typeof text === 'string' ? { message: text } : {}),
    },
  };
}
