/**
 * `agentLoop({ mcpServers })`: connects the servers (in parallel, each within `MCP_TIMEOUT`),
 * adds their tools to `tools`, runs the loop, and closes every connection when the loop ends or
 * is unsubscribed. A server that fails is reported as a `warning` event (code
 * `mcp_server_failed`) and the loop runs without it. A server's `tools/list_changed` changes the
 * tool set of the next iteration (through the loop's `refreshTools` seam), never a request
 * already sent.
 */
import { randomUUID } from 'node:crypto';
import { defer, isObservable, Observable, of, switchMap, type Subscription } from 'rxjs';
import { toolsOfIteration } from '../loop/toolRefresh.js';
import type { Tool } from '../tools/types.js';
import type { AgentLoopOptions } from '../loop/options.js';
import type { LoopEvent } from '../loop/types.js';
import type { ConnectMcpServersOptions } from './connectMcpServers.js';
import { mcpLimitsFromEnv } from './limits.js';
import type { McpSession } from './mcpSession.js';
import { expandMcpPrompt } from './prompts.js';
import type { MessageParam } from '../protocol/content.js';

export const MCP_WARNING_CODE = 'mcp_server_failed';

export function withMcpServers<O extends AgentLoopOptions>(
  options: O,
  run: (options: O) => Observable<LoopEvent>,
  connectOptions: ConnectMcpServersOptions = {},
): Observable<LoopEvent> {
  const servers = options.mcpServers;
  if (!servers || Object.keys(servers).length === 0) return run(options);
  return new Observable<LoopEvent>((subscriber) => {
    const chainId = options.chainId ?? randomUUID();
    let depth = options.depth ?? 0;
    const stop = new AbortController();
    let session: McpSession | undefined;
    let loop: Subscription | undefined;
    const onWarning = (message: string) => subscriber.next({ type: 'warning', message, code: MCP_WARNING_CODE, chainId, depth });
    const startLoop = (opened: McpSession): void => {
      session = opened;
      if (stop.signal.aborted) return void opened.close();
      const own = options.refreshTools;
      loop = defer(() =>
        run({
          ...options,
          chainId,
          // `/mcp__<server>__<prompt> args` as the prompt asks that server for it (a caller's own
          // expansion, if any, is asked first).
          expandPrompt: expandWith(options.expandPrompt, expandMcpPrompt(opened.prompts)),
          // A caller's own seam still has its say; the MCP tools follow its answer.
          refreshTools: own
            ? (tools) => toolsOfIteration({ tools, refreshTools: own }).pipe(switchMap((mine) => toObservable(opened.refreshTools(mine))))
            : opened.refreshTools,
        }),
      ).subscribe({
        next: (event) => {
          depth = event.depth;
          subscriber.next(event);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    };
    // Loaded on first use: a loop without MCP servers never loads the SDK.
    import('./mcpSession.js')
      .then(({ openMcpSession }) =>
        openMcpSession(servers, {
          env: process.env,
          limits: mcpLimitsFromEnv(process.env),
          ...(options.onMcpElicitation ? { onElicitation: options.onMcpElicitation } : {}),
          ...connectOptions,
          onWarning,
          signal: stop.signal,
        }),
      )
      .then(startLoop, (error: unknown) => subscriber.error(error));
    return () => {
      stop.abort();
      loop?.unsubscribe();
      void session?.close();
    };
  });
}

type Expand = NonNullable<AgentLoopOptions['expandPrompt']>;

function expandWith(own: Expand | undefined, mcp: Expand): Expand {
  return own ? async (message: MessageParam, signal: AbortSignal) => mcp(await own(message, signal), signal) : mcp;
}

function toObservable(tools: readonly Tool[] | Observable<readonly Tool[]>): Observable<readonly Tool[]> {
  return isObservable(tools) ? tools : of(tools);
}
