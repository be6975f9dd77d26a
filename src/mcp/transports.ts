/**
 * The SDK transport for one configured server: a child process over stdio (as its own process
 * group, see stdioGroupTransport.ts), Streamable HTTP, SSE, or the caller's own. A stdio server's stderr is kept (its last few KiB) to explain a failed
 * start, and never mixed into our own output.
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ConfigurationError } from '../errors.js';
import type { McpServerConfig } from './config.js';
import { createMcpOAuthProvider } from './oauth/clientProvider.js';
import type { McpCredentialStore } from './oauth/credentialStore.js';
import { StdioGroupTransport } from './stdioGroupTransport.js';

const STDERR_TAIL_BYTES = 4096;

export interface OpenedTransport {
  readonly transport: Transport;
  /** What a stdio server wrote to stderr lately ('' for other transports). */
  stderrTail(): string;
  /** The process id of a stdio server once started (tests check it is gone after close). */
  pid(): number | null;
}

/** The OAuth side of a remote server's connection: where its tokens are kept, under which name. */
export interface TransportAuth {
  readonly serverName: string;
  readonly store: McpCredentialStore;
}

/** `cwd`: where stdio servers start (the project root). */
export function openTransport(config: McpServerConfig, cwd: string | undefined, auth?: TransportAuth): OpenedTransport {
  switch (config.type) {
    case undefined:
    case 'stdio': {
      const transport = new StdioGroupTransport({
        command: config.command,
        ...(config.args ? { args: config.args } : {}),
        // The SDK's short list of safe variables (PATH, HOME, ...) plus these: the servers
        // never see our API key or other secrets of the environment.
        ...(config.env ? { env: config.env } : {}),
        ...(cwd !== undefined ? { cwd } : {}),
      });
      let tail = '';
      transport.stderr.on('data', (chunk: Buffer) => {
        tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
      });
      return { transport, stderrTail: () => tail.trim(), pid: () => transport.pid };
    }
    case 'http':
    case 'sse': {
      let url: URL;
      try {
        url = new URL(config.url);
      } catch {
        throw new ConfigurationError(`"url" ${JSON.stringify(config.url)} is not a valid URL`);
      }
      const requestInit: RequestInit = config.headers ? { headers: { ...config.headers } } : {};
      // Only a server signed in to before gets an OAuth provider (it sends the token and lets
      // the SDK refresh it on a 401); without a token a 401 is simply `needs-auth`.
      const authProvider = auth?.store.get(auth.serverName, config.url)?.tokens ? createMcpOAuthProvider({ name: auth.serverName, url: config.url, ...(config.oauth ? { oauth: config.oauth } : {}) }, auth.store, { kind: 'connect' }) : undefined;
      const options = { requestInit, fetch: withTraceparentHeader, ...(authProvider ? { authProvider } : {}) };
      const transport = config.type === 'http' ? new StreamableHTTPClientTransport(url, options) : new SSEClientTransport(url, options);
      return { transport, stderrTail: () => '', pid: () => null };
    }
    case 'transport':
      return { transport: config.transport(), stderrTail: () => '', pid: () => null };
    default: {
      const unknownType: never = config;
      throw new ConfigurationError(`unknown MCP server type ${JSON.stringify((unknownType as { type?: unknown }).type)}`);
    }
  }
}

/**
 * A posted JSON-RPC message that carries a trace context in `params._meta.traceparent` (a traced
 * `tools/call`, see caller.ts) also sends it as the W3C `traceparent` header, so an instrumented
 * HTTP server joins the trace without reading MCP's `_meta`.
 */
const withTraceparentHeader = (input: string | URL, init?: RequestInit): Promise<Response> => {
  const traceparent = typeof init?.body === 'string' ? traceparentOf(init.body) : undefined;
  if (traceparent === undefined) return fetch(input, init);
  const headers = new Headers(init?.headers);
  headers.set('traceparent', traceparent);
  return fetch(input, { ...init, headers });
};

function traceparentOf(body: string): string | undefined {
  if (!body.includes('"traceparent"')) return undefined;
  try {
    const message = JSON.parse(body) as { params?: { _meta?: { traceparent?: unknown } } };
    const value = message.params?._meta?.traceparent;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
