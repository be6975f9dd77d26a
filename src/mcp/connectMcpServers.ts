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
import { filter, NEVER, Observable, of, startWith, switchMap, type Subscription } from 'rxjs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '../tools/types.js';
import type { McpServersConfig } from './config.js';
import { connectMcpServer, type ConnectServerOptions, type McpServerSnapshot, type McpServerStatusName, type SkippedTool } from './connectServer.js';
import { DEFAULT_MCP_LIMITS } from './limits.js';
import type { McpPrompt } from './prompts.js';
import { createResourceTools } from './resourceTools.js';
import { planServerSet, type ServerEntry, type ServerSet } from './serverSet.js';

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
  /** The connected servers that offer resources, by name (the host's `mcp_read_resource`). */
  readonly resourceClients?: ReadonlyMap<string, Pick<Client, 'listResources' | 'readResource'>>;
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
  const set: Record<string, ServerEntry> = {};
  for (const [name, server] of Object.entries(config)) set[name] = { kind: 'start', config: server };
  for (const [name, why] of Object.entries(options.notStarted ?? {})) set[name] ??= { kind: 'held', status: why.status, reason: why.reason };
  if (Object.keys(set).length === 0) return of(EMPTY_MCP_TOOLS);
  return connectServerSet(of(set), options);
}

/** The server options every connection of a set shares. */
function serverOptionsOf(options: Partial<ConnectServerOptions>): ConnectServerOptions {
  return {
    env: options.env ?? process.env,
    limits: options.limits ?? DEFAULT_MCP_LIMITS,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.clientInfo ? { clientInfo: options.clientInfo } : {}),
    ...(options.onClose ? { onClose: options.onClose } : {}),
    ...(options.traceparentFor ? { traceparentFor: options.traceparentFor } : {}),
    ...(options.onElicitation ? { onElicitation: options.onElicitation } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
}

function entryStream(name: string, entry: ServerEntry, options: ConnectServerOptions, reconnect$: Observable<string>): Observable<McpServerSnapshot> {
  if (entry.kind === 'held') return of<McpServerSnapshot>({ name, status: entry.status, error: entry.reason, tools: [], skippedTools: [] });
  return reconnect$.pipe(
    filter((asked) => asked === name),
    startWith(name),
    switchMap((_, attempt) => (attempt === 0 ? connectMcpServer(name, entry.config, options) : connectMcpServer(name, entry.config, options).pipe(startWith(reconnecting(name))))),
  );
}

interface Slot {
  readonly entry: ServerEntry;
  latest?: McpServerSnapshot;
  subscription?: Subscription;
}

/**
 * A set of servers that changes while it runs: each value of `set$` names every server and what
 * it is now; only the difference is acted on (`planServerSet`). The output is `McpTools` over the
 * set in its latest order, once every listed server has a state (a newly started one: connected
 * or failed), and again when any server's state changes. `set$` completing ends nothing: the
 * servers run until unsubscribed.
 */
export function connectServerSet(set$: Observable<ServerSet>, options: Omit<ConnectMcpServersOptions, 'notStarted'> = {}): Observable<McpTools> {
  const serverOptions = serverOptionsOf(options);
  const reconnect$ = options.reconnect$ ?? NEVER;
  return new Observable<McpTools>((subscriber) => {
    const slots = new Map<string, Slot>();
    let order: string[] = [];
    let changed = false;
    const emit = () => {
      if (!changed) return;
      const snapshots = order.map((name) => slots.get(name)?.latest);
      if (snapshots.some((s) => s === undefined)) return;
      changed = false;
      subscriber.next(order.length === 0 ? EMPTY_MCP_TOOLS : mergeSnapshots(snapshots as McpServerSnapshot[], serverOptions));
    };
    const outer = set$.subscribe({
      next: (next) => {
        const plan = planServerSet(new Map([...slots].map(([name, slot]) => [name, slot.entry])), next);
        for (const name of plan.stop) {
          slots.get(name)?.subscription?.unsubscribe();
          slots.delete(name);
        }
        order = Object.keys(next);
        changed = true;
        for (const name of plan.start) {
          const slot: Slot = { entry: next[name] as ServerEntry };
          slots.set(name, slot);
          slot.subscription = entryStream(name, slot.entry, serverOptions, reconnect$).subscribe({
            next: (snapshot) => {
              slot.latest = snapshot;
              changed = true;
              emit();
            },
            error: (error: unknown) => subscriber.error(error),
          });
        }
        emit();
      },
      error: (error: unknown) => subscriber.error(error),
    });
    return () => {
      outer.unsubscribe();
      for (const slot of slots.values()) slot.subscription?.unsubscribe();
    };
  });
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
    resourceClients: resourceServers,
  };
}

function reconnecting(name: string): McpServerSnapshot {
  return { name, status: 'pending', error: 'connecting again', tools: [], skippedTools: [] };
}
