/**
 * One MCP server as a cold stream of snapshots: subscribing starts it (spawns the process or
 * opens the HTTP session), runs `initialize` and lists its tools within `MCP_TIMEOUT`, then emits
 * `connected` with its tools, or `failed` / `needs-auth` with the reason. After that it emits
 * again when the server says its tool list changed (`notifications/tools/list_changed`, listed
 * anew) and `failed` when the server goes away. Unsubscribing closes the connection: a stdio
 * server is stopped with its whole process group (stdin closed, then SIGTERM, then SIGKILL), an HTTP session is
 * terminated with DELETE.
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, PromptListChangedNotificationSchema, ToolListChangedNotificationSchema, ToolSchema, type Prompt, type Tool as McpToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import { Observable } from 'rxjs';
import { z } from 'zod';
import type { Tool } from '../tools/types.js';
import { expandServerConfig, type McpServerConfig } from './config.js';
import type { EnvLookup } from './expandEnv.js';
import type { McpLimits } from './limits.js';
import { createMcpCaller, type McpCaller, type TraceparentFor } from './caller.js';
import { fieldsOf, type McpElicitationHandler } from './elicitation.js';
import type { McpCredentialStore } from './oauth/credentialStore.js';
import { promptsOfServer, type McpPrompt } from './prompts.js';
import { adaptMcpTool } from './toolAdapter.js';
import { openTransport, type OpenedTransport } from './transports.js';

/** Claude Code's server states, as `system/init` reports them. */
/** The Agent SDK's `McpServerStatus.status` values; `disabled`: refused in the settings, never started. */
export type McpServerStatusName = 'connected' | 'failed' | 'pending' | 'needs-auth' | 'disabled';

export interface SkippedTool {
  readonly name: string;
  readonly reason: string;
}

/** One server's state at one moment. */
export interface McpServerSnapshot {
  readonly name: string;
  readonly status: McpServerStatusName;
  /** Why it failed, needs auth or is pending. */
  readonly error?: string;
  readonly tools: readonly Tool[];
  /** The server's prompts, as `/mcp__<server>__<prompt>` commands (none when it offers none). */
  readonly prompts?: readonly McpPrompt[];
  /** Tools the server listed that cannot be offered, and why. */
  readonly skippedTools: readonly SkippedTool[];
  /** The connected client, when the server offers resources (the resource tools use it). */
  readonly resourceClient?: Client;
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** The process id of a stdio server. */
  readonly pid?: number;
  /** The server said its tools changed and they are being listed again: `tools` is stale. */
  readonly refreshing?: boolean;
}

export interface ConnectServerOptions {
  readonly env: EnvLookup;
  readonly limits: McpLimits;
  /** Where stdio servers start. Default: our working directory. */
  readonly cwd?: string;
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Receives the promise of each connection's close (the command awaits them before it exits). */
  readonly onClose?: (closed: Promise<void>) => void;
  /** A traced run's tool-call trace context, sent with each `tools/call`. */
  readonly traceparentFor?: TraceparentFor;
  /**
   * Answers a server's `elicitation/create` (form mode). Given, the client advertises the
   * elicitation capability; absent, it advertises none and servers do not ask.
   */
  readonly onElicitation?: McpElicitationHandler;
  /** Where remote servers' OAuth tokens are kept (signed in with `signInToMcpServer`). Default: none, a 401 is `needs-auth`. */
  readonly credentials?: McpCredentialStore;
}

const looseToolList = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

export function connectMcpServer(name: string, config: McpServerConfig, options: ConnectServerOptions): Observable<McpServerSnapshot> {
  return new Observable<McpServerSnapshot>((subscriber) => {
    const { config: expanded, missing } = expandServerConfig(config, options.env);
    if (missing.length > 0) {
      subscriber.next(failed(name, `environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not set (no default given)`));
      subscriber.complete();
      return undefined;
    }
    let opened: OpenedTransport;
    try {
      opened = openTransport(expanded, options.cwd, options.credentials ? { serverName: name, store: options.credentials } : undefined);
    } catch (error) {
      subscriber.next(failed(name, messageOf(error)));
      subscriber.complete();
      return undefined;
    }
    const elicit = options.onElicitation;
    const client = new Client(options.clientInfo ?? { name: 'rxagent', version: '0' }, { capabilities: elicit ? { elicitation: { form: {} } } : {} });
    if (elicit) {
      client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
        const params = request.params;
        // Form mode only (URL mode is not advertised, so the SDK refuses it before this).
        const schema = 'requestedSchema' in params ? (params.requestedSchema as Parameters<typeof fieldsOf>[0]) : undefined;
        const answer = await elicit({ server: name, message: params.message, fields: fieldsOf(schema), ...(schema ? { requestedSchema: schema as Record<string, unknown> } : {}), signal: extra.signal });
        return answer.action === 'accept' ? { action: 'accept', content: answer.content ?? {} } : { action: answer.action };
      });
    }
    const startup = new AbortController();
    let closing = false;
    let connected = false;
    let current: McpServerSnapshot | undefined;

    const emit = (snapshot: McpServerSnapshot): void => {
      if (closing || subscriber.closed) return;
      current = snapshot;
      subscriber.next(snapshot);
    };
    const end = (snapshot: McpServerSnapshot): void => {
      emit(snapshot);
      subscriber.complete();
    };
    const withStderr = (text: string): string => {
      const tail = opened.stderrTail();
      return tail === '' ? text : `${text}; its stderr ended with: ${tail}`;
    };

    client.onclose = () => {
      if (closing) return;
      // Before `connected`, the failed start is reported by the connect/list chain below.
      if (connected) end(failed(name, withStderr('the server closed the connection'), current));
    };

    let caller: McpCaller | undefined;
    const listTools = async (signal?: AbortSignal): Promise<{ tools: Tool[]; skipped: SkippedTool[] }> => {
      const tools: Tool[] = [];
      const skipped: SkippedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          looseToolList,
          { timeout: options.limits.connectTimeoutMs, ...(signal ? { signal } : {}) },
        );
        for (const raw of page.tools) {
          const definition = ToolSchema.safeParse(raw);
          if (!definition.success) {
            skipped.push({ name: nameOf(raw), reason: `its definition is not a valid MCP tool (${definition.error.issues.map((i) => `${i.path.join('.') || 'tool'}: ${i.message}`).join('; ')})` });
            continue;
          }
          caller ??= createMcpCaller(client, opened.transport, options.traceparentFor);
          const adapted = adaptMcpTool(name, definition.data as McpToolDefinition, caller, options.limits);
          if (adapted.ok) tools.push(adapted.tool);
          else skipped.push({ name: definition.data.name, reason: adapted.reason });
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return { tools, skipped };
    };

    // Prompts are listed once at start and again on `prompts/list_changed`; a server whose
    // listing fails keeps its tools and offers no prompts.
    let prompts: readonly McpPrompt[] = [];
    const listPrompts = async (signal?: AbortSignal): Promise<readonly McpPrompt[]> => {
      if (!client.getServerCapabilities()?.prompts) return [];
      const listed: Prompt[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listPrompts(cursor === undefined ? {} : { cursor }, { timeout: options.limits.connectTimeoutMs, ...(signal ? { signal } : {}) });
        listed.push(...page.prompts);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return promptsOfServer(name, listed, client, options.limits.toolTimeoutMs);
    };

    const connectedSnapshot = (listed: { tools: Tool[]; skipped: SkippedTool[] }): McpServerSnapshot => {
      const info = client.getServerVersion();
      const pid = opened.pid();
      return {
        name,
        status: 'connected',
        tools: listed.tools,
        ...(prompts.length > 0 ? { prompts } : {}),
        skippedTools: listed.skipped,
        ...(client.getServerCapabilities()?.resources ? { resourceClient: client } : {}),
        ...(info ? { serverInfo: { name: info.name, version: info.version } } : {}),
        ...(pid !== null ? { pid } : {}),
      };
    };

    // A list_changed while a listing runs asks for one more listing after it, never two at once.
    let relisting: Promise<void> | undefined;
    let relistAgain = false;
    const relist = (): void => {
      if (relisting) {
        relistAgain = true;
        return;
      }
      // Said at once (before the call that caused the change delivers its result), so the
      // loop's next iteration waits for the new list instead of sending the old one.
      if (current && !current.refreshing) emit({ ...current, refreshing: true });
      relisting = listTools()
        .then(
          (listed) => emit(connectedSnapshot(listed)),
          (error: unknown) => {
            if (!closing) end(failed(name, `listing its tools again failed: ${messageOf(error)}`, current));
          },
        )
        .finally(() => {
          relisting = undefined;
          if (relistAgain && !closing) {
            relistAgain = false;
            relist();
          }
        });
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (connected) relist();
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      if (!connected) return;
      void listPrompts().then(
        (listed) => {
          prompts = listed;
          if (current && current.status === 'connected') emit({ ...current, ...(listed.length > 0 ? { prompts: listed } : { prompts: [] }) });
        },
        () => undefined,
      );
    });

    const limitMs = options.limits.connectTimeoutMs;
    const startTimer = setTimeout(() => {
      startup.abort();
      end(failed(name, withStderr(`did not start within ${limitMs} ms (MCP_TIMEOUT)`)));
    }, limitMs);

    client
      .connect(opened.transport, { timeout: limitMs, signal: startup.signal })
      .then(async () => {
        prompts = await listPrompts(startup.signal).catch(() => []);
        return listTools(startup.signal);
      })
      .then(
        (listed) => {
          clearTimeout(startTimer);
          if (startup.signal.aborted) return;
          connected = true;
          emit(connectedSnapshot(listed));
        },
        (error: unknown) => {
          clearTimeout(startTimer);
          if (startup.signal.aborted) return;
          end(needsAuth(error) ? { ...failed(name, `${messageOf(error)}; sign in with /mcp login ${name} (or rxagent mcp login ${name})`), status: 'needs-auth' } : failed(name, withStderr(`could not start: ${messageOf(error)}`)));
        },
      );

    return () => {
      closing = true;
      clearTimeout(startTimer);
      startup.abort();
      // Closed whether or not anyone waits for it (`onClose?.(closeClient())` would skip the call).
      const closed = closeClient(client, opened);
      options.onClose?.(closed);
    };
  });
}

/** Ends an HTTP session politely (DELETE), then closes the client and its transport. Never rejects. */
async function closeClient(client: Client, opened: OpenedTransport): Promise<void> {
  const transport = opened.transport;
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
    await transport.terminateSession().catch(() => undefined);
  }
  await client.close().catch(() => undefined);
  await transport.close().catch(() => undefined);
}

function failed(name: string, error: string, previous?: McpServerSnapshot): McpServerSnapshot {
  return {
    name,
    status: 'failed',
    error,
    tools: [],
    skippedTools: [],
    ...(previous?.serverInfo ? { serverInfo: previous.serverInfo } : {}),
  };
}

/** HTTP 401 (with or without an OAuth challenge): the server wants credentials we do not have. */
function needsAuth(error: unknown): boolean {
  if (error instanceof UnauthorizedError) return true;
  if (typeof error !== 'object' || error === null) return false;
  return (error as { code?: unknown }).code === 401 || (error as { name?: unknown }).name === 'UnauthorizedError' || /\b401\b/.test(messageOf(error));
}

function nameOf(raw: unknown): string {
  const name = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : '(unnamed)';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
