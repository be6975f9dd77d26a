/**
 * `connectMcpServers(config)`: every configured server, connected in parallel, as one cold
 * `Observable<McpTools>`. The first value comes once every server has connected or failed (each
 * within `MCP_TIMEOUT`); a failed server is listed with its status and reason while the others
 * go on. Later values follow a server's `tools/list_changed` or its death. Unsubscribing closes
 * every connection and stops every server process.
 *
 * ```
 * server a:  ---A-----A'--     (connected, then its tool list changed)
 * server b:  -----F|           (failed)
 * output:    -----x---y---     x = {a's tools; a connected, b failed}, y = {a's new tools; ...}
 * ```
 */
import { combineLatest, filter, map, NEVER, Observable, of, startWith, switchMap } from 'rxjs';
import type { Tool } from '../tools/types.js';
import type { McpServersConfig } from './config.js';
import { connectMcpServer, type ConnectServerOptions, type McpServerSnapshot, type McpServerStatusName, type SkippedTool } from './connectServer.js';
import { DEFAULT_MCP_LIMITS } from './limits.js';
import type { McpPrompt } from './prompts.js';
import { createResourceTools } from './resourceTools.js';

/** A server as `system/init` lists it. */
export interface McpServerStatus {
  readonly name: string;
  readonly status: McpServerStatusName;
  readonly error?: string;
  readonly serverInfo?: { readonly name: string; readonly version: string };
}

/** The tools of every connected server (plus the resource tools when some server has resources). */
export interface McpTools {
  readonly tools: readonly Tool[];
  /** The connected servers' prompts, as `/mcp__<server>__<prompt>` commands. */
  readonly prompts: readonly McpPrompt[];
  readonly servers: readonly McpServerStatus[];
  /** Tools servers listed that cannot be offered, by server. */
  readonly skippedTools: readonly (SkippedTool & { readonly server: string })[];
  /** Process ids of the running stdio servers. */
  readonly pids: readonly number[];
  /** Some server is listing its changed tools again; a value with the new list follows. */
  readonly refreshing: boolean;
}

export interface ConnectMcpServersOptions extends Partial<ConnectServerOptions> {
  /**
   * Servers listed but not started (a project server nobody approved): reported with this
   * status and reason, never connected.
   */
  readonly notStarted?: Readonly<Record<string, { readonly status: McpServerStatusName; readonly reason: string }>>;
  /**
   * Names of servers to connect again (after a sign-in): the old connection is closed, the
   * server is listed `pending` until the new one has connected or failed.
   */
  readonly reconnect$?: Observable<string>;
}

export const EMPTY_MCP_TOOLS: McpTools = Object.freeze({ tools: [], prompts: [], servers: [], skippedTools: [], pids: [], refreshing: false });

export function connectMcpServers(config: McpServersConfig, options: ConnectMcpServersOptions = {}): Observable<McpTools> {
  const serverOptions: ConnectServerOptions = {
    env: options.env ?? process.env,
    limits: options.limits ?? DEFAULT_MCP_LIMITS,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.clientInfo ? { clientInfo: options.clientInfo } : {}),
    ...(options.onClose ? { onClose: options.onClose } : {}),
    ...(options.traceparentFor ? { traceparentFor: options.traceparentFor } : {}),
    ...(options.onElicitation ? { onElicitation: options.onElicitation } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
  const held: Observable<McpServerSnapshot>[] = Object.entries(options.notStarted ?? {}).map(([name, why]) =>
    of<McpServerSnapshot>({ name, status: why.status, error: why.reason, tools: [], skippedTools: [] }),
  );
  const reconnect$ = options.reconnect$ ?? NEVER;
  const started = Object.entries(config).map(([name, server]) =>
    reconnect$.pipe(
      filter((asked) => asked === name),
      startWith(name),
      switchMap((_, attempt) => (attempt === 0 ? connectMcpServer(name, server, serverOptions) : connectMcpServer(name, server, serverOptions).pipe(startWith(reconnecting(name))))),
    ),
  );
  const all = [...started, ...held];
  if (all.length === 0) return of(EMPTY_MCP_TOOLS);
  return combineLatest(all).pipe(map((snapshots) => mergeSnapshots(snapshots, serverOptions)));
}

/** One McpTools from the servers' latest snapshots, in configuration order. */
export function mergeSnapshots(snapshots: readonly McpServerSnapshot[], options: Pick<ConnectServerOptions, 'limits'>): McpTools {
  const resourceServers = new Map(snapshots.flatMap((s) => (s.status === 'connected' && s.resourceClient ? [[s.name, s.resourceClient] as const] : [])));
  return {
    tools: [...snapshots.flatMap((s) => s.tools), ...createResourceTools(resourceServers, options.limits)],
    prompts: snapshots.flatMap((s) => (s.status === 'connected' ? (s.prompts ?? []) : [])),
    servers: snapshots.map((s) => ({
      name: s.name,
      status: s.status,
      ...(s.error !== undefined ? { error: s.error } : {}),
      ...(s.serverInfo ? { serverInfo: s.serverInfo } : {}),
    })),
    skippedTools: snapshots.flatMap((s) => s.skippedTools.map((t) => ({ ...t, server: s.name }))),
    pids: snapshots.flatMap((s) => (s.status === 'connected' && s.pid !== undefined ? [s.pid] : [])),
    refreshing: snapshots.some((s) => s.refreshing === true),
  };
}

function reconnecting(name: string): McpServerSnapshot {
  return { name, status: 'pending', error: 'connecting again', tools: [], skippedTools: [] };
}
