/**
 * The MCP servers of a whole command run (every turn of an interactive session uses the same
 * connections): started once, waited for until each connected or failed, held open, and
 * closed by `close()`, which resolves only when every server process has stopped and every HTTP
 * session was ended.
 */
import { BehaviorSubject, Subject, type Observable } from 'rxjs';
import { ConfigurationError } from '../errors.js';
import { expandServerConfig, type McpRemoteServerConfig } from './config.js';
import { isRemoteServer, signInToMcpServer } from './oauth/signIn.js';
import type { Tool } from '../tools/types.js';
import type { McpServersConfig } from './config.js';
import { connectServerSet, type ConnectMcpServersOptions, type McpServerStatus, type McpTools } from './connectMcpServers.js';
import { createServerControl, type McpServerControl } from './serverControl.js';
import type { ServerSet } from './serverSet.js';
import type { McpPrompt } from './prompts.js';
import { createMcpToolSet } from './toolSet.js';
import { mcpWarnings } from './warnings.js';

export interface McpSession extends McpServerControl {
  /** The servers' latest states (the init line's `mcp_servers`). */
  servers(): readonly McpServerStatus[];
  /** The servers' tools now. */
  tools(): readonly Tool[];
  /** The connected servers' prompts now (`/mcp__<server>__<prompt>` commands). */
  prompts(): readonly McpPrompt[];
  /** The loop's `refreshTools`: its own tools followed by the servers' (after a re-listing under way). */
  refreshTools(own: readonly Tool[]): readonly Tool[] | Observable<readonly Tool[]>;
  /**
   * Signs in to a remote server with OAuth (the browser step through `onAuthorizationUrl`),
   * then connects it again; resolves with its state after that. Rejects with a McpSignInError
   * (or a ConfigurationError for a server that is not remote or not configured).
   */
  signIn(name: string, options: { readonly onAuthorizationUrl: (url: URL) => void | Promise<void>; readonly signal: AbortSignal }): Promise<McpServerStatus>;
  close(): Promise<void>;
}

export async function openMcpSession(
  config: McpServersConfig,
  options: Omit<ConnectMcpServersOptions, 'onClose'> & {
    readonly onWarning: (message: string) => void;
    /** Aborting closes everything at once, even before the servers settled. */
    readonly signal?: AbortSignal;
    /** Which MCP tools to offer at all. Default: every one. */
    readonly offer?: (toolName: string) => boolean;
    /** Servers the host manages (the Agent SDK's in-process ones): a `replaceServers` that leaves them out removes them. */
    readonly hostManaged?: readonly string[];
  },
): Promise<McpSession> {
  const closes: Promise<void>[] = [];
  const toolSet = createMcpToolSet(options.offer);
  let latest: McpTools | undefined;
  let failure: unknown;
  let settle!: () => void;
  const first = new Promise<void>((resolve) => (settle = resolve));
  const { onWarning: _onWarning, signal: _signal, offer: _offer, notStarted, hostManaged, ...connectOptions } = options;
  const reconnect$ = new Subject<string>();
  const values$ = new Subject<McpTools>();
  const control = createServerControl({ config, notStarted: notStarted ?? {}, hostManaged: hostManaged ?? [], values$, reconnect$, latest: () => latest });
  const set$ = new BehaviorSubject<ServerSet>(control.set());
  control.onChange((set) => set$.next(set));
  const subscription = connectServerSet(set$, { ...connectOptions, reconnect$, onClose: (closed) => void closes.push(closed) }).subscribe({
    next: (tools) => {
      const previous = latest;
      latest = tools;
      values$.next(tools);
      toolSet.update(tools);
      mcpWarnings(previous, tools).forEach(options.onWarning);
      settle();
    },
    error: (error: unknown) => {
      failure = error;
      settle();
    },
  });
  const close = async () => {
    subscription.unsubscribe();
    await Promise.all(closes);
  };
  const onAbort = () => {
    void close();
    settle();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  await first;
  options.signal?.removeEventListener('abort', onAbort);
  if (failure !== undefined) {
    await close();
    throw failure;
  }
  return {
    ...control.methods,
    servers: () => latest?.servers ?? [],
    tools: toolSet.mcpTools,
    prompts: () => latest?.prompts ?? [],
    refreshTools: toolSet.refresh,
    async signIn(name, signInOptions) {
      const server = control.configOf(name);
      if (server === undefined) throw new ConfigurationError(`no MCP server named "${name}" is configured`);
      if (!isRemoteServer(server)) throw new ConfigurationError(`MCP server "${name}" is not a remote (http or sse) server; only those sign in with OAuth`);
      const credentials = options.credentials;
      if (credentials === undefined) throw new ConfigurationError('this run keeps no MCP credentials, so it cannot sign in');
      await signInToMcpServer(name, expandServerConfig(server, options.env ?? process.env).config as McpRemoteServerConfig, { ...signInOptions, store: credentials });
      return control.reconnected(name);
    },
    close,
  };
}
