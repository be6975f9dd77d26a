/**
 * What a host may change in a running session's MCP servers (the Agent SDK's control requests):
 * replace the servers it manages (`mcp_set_servers`), connect one again (`mcp_reconnect`),
 * switch one off and on (`mcp_toggle`: its tools leave and come back from the next request),
 * and read a `ui://` resource of one (`mcp_read_resource`). Each change is a new server set
 * (`serverSet.ts`), so only the servers it concerns are started or stopped; each answer comes
 * once those servers have settled (connected, failed, disabled or gone).
 */
import { filter, firstValueFrom, map, skipWhile, type Observable, type Subject } from 'rxjs';
import { ConfigurationError } from '../errors.js';
import type { McpServerConfig, McpServersConfig } from './config.js';
import type { McpServerStatus, McpTools } from './connectMcpServers.js';
import type { McpServerStatusName } from './connectServer.js';
import type { ServerSet } from './serverSet.js';

/** `mcp_set_servers`' answer (the SDK's `McpSetServersResult`). */
export interface McpSetServersResult {
  readonly added: string[];
  readonly removed: string[];
  /** Servers that were started and did not connect: the reason, by name. */
  readonly errors: Record<string, string>;
}

/** One item of a resource as `resources/read` answers it (the SDK's `SDKControlMcpReadResourceResponse`). */
export interface McpResourceContents {
  readonly contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: string; _meta?: Record<string, unknown> }>;
}

export interface McpServerControl {
  /**
   * Replaces the servers the host manages with `servers`: each new one (or one whose
   * configuration changed) is started, each managed one left out is stopped. A server of the
   * run's own configuration is replaced when named, and kept when left out.
   */
  replaceServers(servers: Readonly<Record<string, McpServerConfig>>): Promise<McpSetServersResult>;
  /** Closes a server's connection and connects it again; rejects when it does not connect. */
  reconnect(name: string): Promise<McpServerStatus>;
  /** Switches a server off (stopped, `disabled`, its tools gone) or on again (rejects when it does not connect). */
  setEnabled(name: string, enabled: boolean): Promise<McpServerStatus>;
  /** Reads a `ui://` resource from a connected server (MCP Apps); other schemes are refused. */
  readResource(name: string, uri: string): Promise<McpResourceContents>;
}

/** Same server: the same object, or (except a caller's transport) the same JSON. */
function sameConfig(a: McpServerConfig, b: McpServerConfig): boolean {
  return a === b || (a.type !== 'transport' && b.type !== 'transport' && JSON.stringify(a) === JSON.stringify(b));
}

const DISABLED_REASON = 'disabled by the host (mcp_toggle)';

export function createServerControl(deps: {
  readonly config: McpServersConfig;
  /** Listed but never started (a project server nobody approved). */
  readonly notStarted: Readonly<Record<string, { readonly status: McpServerStatusName; readonly reason: string }>>;
  readonly hostManaged: readonly string[];
  readonly values$: Observable<McpTools>;
  readonly reconnect$: Subject<string>;
  readonly latest: () => McpTools | undefined;
}) {
  const configs = new Map(Object.entries(deps.config));
  const disabled = new Set<string>();
  let hostManaged = new Set(deps.hostManaged);
  let onChange: (set: ServerSet) => void = () => undefined;

  const set = (): ServerSet => {
    const out: Record<string, ServerSet[string]> = {};
    for (const [name, config] of configs) out[name] = disabled.has(name) ? { kind: 'held', status: 'disabled', reason: DISABLED_REASON } : { kind: 'start', config };
    for (const [name, why] of Object.entries(deps.notStarted)) out[name] ??= { kind: 'held', status: why.status, reason: why.reason };
    return out;
  };
  const statusIn = (tools: McpTools, name: string) => tools.servers.find((s) => s.name === name);
  /** The first value the predicate accepts, subscribed before `change` runs (a value may come synchronously). */
  const after = (change: () => void, accept: (tools: McpTools) => boolean): Promise<McpTools> => {
    const settled = firstValueFrom(deps.values$.pipe(filter(accept)));
    change();
    return settled;
  };
  const push = () => onChange(set());
  const started = (name: string): void => {
    if (configs.has(name)) return;
    const held = deps.notStarted[name];
    throw new ConfigurationError(held ? `MCP server "${name}" is ${held.status}: ${held.reason}` : `no MCP server named "${name}" (servers: ${[...configs.keys()].join(', ') || 'none'})`);
  };
  const reconnected = (name: string): Promise<McpServerStatus> => {
    // Listed `pending` at once (synchronously) by the reconnection, then settled.
    const settled = firstValueFrom(
      deps.values$.pipe(
        map((tools) => statusIn(tools, name)),
        filter((s): s is McpServerStatus => s !== undefined),
        skipWhile((s) => s.status !== 'pending'),
        filter((s) => s.status !== 'pending'),
      ),
    );
    deps.reconnect$.next(name);
    return settled;
  };
  const notConnected = (name: string, status: McpServerStatus) => new Error(`MCP server "${name}" did not connect (${status.status}${status.error ? `: ${status.error}` : ''})`);

  const methods: McpServerControl = {
    async replaceServers(servers) {
      const removed = [...hostManaged].filter((name) => servers[name] === undefined && configs.has(name));
      const added = Object.entries(servers)
        .filter(([name, config]) => {
          const old = configs.get(name);
          return old === undefined || !sameConfig(old, config);
        })
        .map(([name]) => name);
      hostManaged = new Set(Object.keys(servers));
      if (added.length === 0 && removed.length === 0) return { added, removed, errors: {} };
      const tools = await after(
        () => {
          for (const name of removed) configs.delete(name);
          for (const name of added) configs.set(name, servers[name] as McpServerConfig);
          for (const name of [...removed, ...added]) disabled.delete(name);
          push();
        },
        (t) => added.every((name) => (statusIn(t, name)?.status ?? 'pending') !== 'pending') && removed.every((name) => statusIn(t, name) === undefined),
      );
      const errors: Record<string, string> = {};
      for (const name of added) {
        const status = statusIn(tools, name);
        if (status && status.status !== 'connected') errors[name] = status.error ?? status.status;
      }
      return { added, removed, errors };
    },
    async reconnect(name) {
      started(name);
      if (disabled.has(name)) throw new ConfigurationError(`MCP server "${name}" is disabled; enable it (mcp_toggle) to connect it`);
      const status = await reconnected(name);
      if (status.status !== 'connected') throw notConnected(name, status);
      return status;
    },
    async setEnabled(name, enabled) {
      started(name);
      const current = deps.latest() && statusIn(deps.latest() as McpTools, name);
      if (enabled === !disabled.has(name) && current) return current;
      const tools = await after(
        () => {
          if (enabled) disabled.delete(name);
          else disabled.add(name);
          push();
        },
        (t) => {
          const status = statusIn(t, name)?.status;
          return enabled ? status !== undefined && status !== 'disabled' && status !== 'pending' : status === 'disabled';
        },
      );
      const status = statusIn(tools, name) as McpServerStatus;
      if (enabled && status.status !== 'connected') throw notConnected(name, status);
      return status;
    },
    async readResource(name, uri) {
      if (!uri.startsWith('ui://')) throw new ConfigurationError(`only ui:// resources are read this way (got ${JSON.stringify(uri)})`);
      started(name);
      const latest = deps.latest();
      const status = latest && statusIn(latest, name);
      if (!status || status.status !== 'connected') throw new ConfigurationError(`MCP server "${name}" is not connected (${status?.status ?? 'unknown'}${status?.error ? `: ${status.error}` : ''}); send mcp_reconnect`);
      const client = latest.resourceClients?.get(name);
      if (!client) throw new ConfigurationError(`MCP server "${name}" offers no resources`);
      const result = await client.readResource({ uri });
      return {
        contents: result.contents.map((item) => ({
          uri: item.uri,
          ...(item.mimeType === undefined ? {} : { mimeType: item.mimeType }),
          ...('text' in item && typeof item.text === 'string' ? { text: item.text } : {}),
          ...('blob' in item && typeof item.blob === 'string' ? { blob: item.blob } : {}),
          ...(item._meta === undefined ? {} : { _meta: item._meta as Record<string, unknown> }),
        })),
      };
    },
  };
  return {
    methods,
    set,
    onChange: (listener: (set: ServerSet) => void) => void (onChange = listener),
    configOf: (name: string): McpServerConfig | undefined => configs.get(name),
    reconnected,
  };
}
