/**
 * One MCP tool as an rxagent tool (the contract of src/tools/types.ts, built with `defineTool`):
 *
 * - name `mcp__<server>__<tool>`; `input_schema` is the server's JSON Schema, checked before the
 *   call like any tool's input;
 * - `readOnlyHint: true` makes it concurrency-safe, anything else unsafe (a barrier);
 * - the call is `tools/call` with a progress token: each `notifications/progress` becomes a
 *   `tool_progress` event; stopping the call (timeout, interrupt, abort, unsubscribe) aborts the
 *   request, which sends MCP `notifications/cancelled`;
 * - `isError` results become error tool_results; long output is cut at `MAX_MCP_OUTPUT_TOKENS`.
 *
 * It needs only an `McpCaller` (`createMcpCaller` over an SDK `Client` on any transport: stdio,
 * HTTP, in-process, the Agent SDK's `mcp_message` bridge).
 */
import type { CallToolResult, Tool as McpToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import { Observable } from 'rxjs';
import { RxAgentError } from '../errors.js';
import { defineTool } from '../tools/defineTool.js';
import type { Tool, ToolYield } from '../tools/types.js';
import { errorTextOf, mcpStructuredResult, renderMcpResult } from './callResult.js';
import type { McpCaller } from './caller.js';
import { compileInputSchema } from './inputSchema.js';
import type { McpLimits } from './limits.js';
import { mcpToolName } from './toolName.js';

/** What a server reported with `isError: true`, or a failure of the protocol itself. */
export class McpToolError extends RxAgentError {
  override readonly name = 'McpToolError';
  readonly kind = 'tool' as const;
  readonly retryable = false;
}

/** The progress data of an MCP tool's `tool_progress` events. */
export interface McpProgress {
  readonly type: 'mcp_progress';
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

export type AdaptedTool = { readonly ok: true; readonly tool: Tool } | { readonly ok: false; readonly name: string; readonly reason: string };

/** The API's limit on tool names. */
const MAX_TOOL_NAME = 64;

/**
 * Turns one tool of `tools/list` into an rxagent tool, or says why it cannot be offered
 * (a name too long for the API, a schema that is not a readable object schema).
 */
export function adaptMcpTool(serverName: string, definition: McpToolDefinition, caller: McpCaller, limits: McpLimits): AdaptedTool {
  const name = mcpToolName(serverName, definition.name);
  if (name.length > MAX_TOOL_NAME) return { ok: false, name, reason: `its name is longer than ${MAX_TOOL_NAME} characters` };
  if (definition.execution?.taskSupport === 'required') {
    return { ok: false, name, reason: 'it can only run as an MCP task, which this client does not support' };
  }
  const compiled = compileInputSchema(definition.inputSchema);
  if (!compiled.ok) return { ok: false, name, reason: compiled.reason };
  const readOnly = definition.annotations?.readOnlyHint === true;
  const tool = defineTool<Record<string, unknown>, CallToolResult>({
    name,
    description: definition.description ?? definition.title ?? definition.annotations?.title ?? definition.name,
    inputSchema: compiled.schema,
    isConcurrencySafe: readOnly,
    // MCP calls can be cancelled by protocol, so an interrupt need not wait for them.
    interruptBehavior: 'cancel',
    timeoutMs: limits.toolTimeoutMs,
    call: (input, ctx) => callMcpTool(caller, definition.name, input, ctx.signal, limits.toolTimeoutMs, { toolUseId: ctx.toolUseId, toolName: name }),
    renderResult: (result) => renderMcpResult(result, limits.maxOutputTokens),
  });
  return { ok: true, tool: Object.freeze({ ...tool, jsonSchema: compiled.jsonSchema }) };
}

/**
 * One `tools/call` as a cold stream of progress and the outcome. The pipeline's own timer
 * (`timeoutMs`) stops the call first; the SDK's timeout is only a backstop a little later.
 */
function callMcpTool(
  caller: McpCaller,
  toolName: string,
  input: Record<string, unknown>,
  signal: AbortSignal,
  timeoutMs: number,
  call: { readonly toolUseId: string; readonly toolName: string },
): Observable<ToolYield<CallToolResult>> {
  return new Observable<ToolYield<CallToolResult>>((subscriber) => {
    caller
      .callTool(toolName, input, {
        signal,
        ...call,
        timeoutMs: Math.min(timeoutMs + 1_000, 2 ** 31 - 1),
        onProgress: ({ progress, total, message }) => {
          const data: McpProgress = {
            type: 'mcp_progress',
            progress,
            ...(total !== undefined ? { total } : {}),
            ...(message !== undefined ? { message } : {}),
          };
          subscriber.next({ type: 'progress', data });
        },
      })
      .then(
        (result) => {
          if (result.isError === true) {
            subscriber.error(new McpToolError(errorTextOf(result)));
            return;
          }
          subscriber.next({ type: 'outcome', output: result, structured: mcpStructuredResult(result) });
          subscriber.complete();
        },
        (error: unknown) => subscriber.error(error),
      );
  });
}
