/**
 * `openMcpSession`, loading the MCP SDK only when there is a server to start or report: a run
 * without MCP servers (most runs) does not pay for loading it (about 0.3 s of start-up). Such a
 * run still takes servers later (the Agent SDK's `mcp_set_servers`): the first one opens the
 * real session then, and every method from there on goes to it.
 */
import { ConfigurationError } from '../errors.js';
import type { McpSession, openMcpSession } from './mcpSession.js';

export type { McpSession };

const noServer = async (name: string): Promise<never> => {
  throw new ConfigurationError(`no MCP server named "${name}" is configured`);
};

export async function openMcpSessionLazily(...args: Parameters<typeof openMcpSession>): Promise<McpSession> {
  const [servers, options] = args;
  const open = async () => (await import('./mcpSession.js')).openMcpSession(...args);
  if (Object.keys(servers).length > 0 || Object.keys(options.notStarted ?? {}).length > 0) return open();
  let real: McpSession | undefined;
  let opening: Promise<McpSession> | undefined;
  return {
    servers: () => real?.servers() ?? [],
    tools: () => real?.tools() ?? [],
    prompts: () => real?.prompts() ?? [],
    refreshTools: (own) => (real ? real.refreshTools(own) : own),
    signIn: (name, signInOptions) => (real ? real.signIn(name, signInOptions) : noServer(name)),
    async replaceServers(next) {
      if (!real && Object.keys(next).length === 0) return { added: [], removed: [], errors: {} };
      real ??= await (opening ??= open());
      return real.replaceServers(next);
    },
    reconnect: (name) => (real ? real.reconnect(name) : noServer(name)),
    setEnabled: (name, enabled) => (real ? real.setEnabled(name, enabled) : noServer(name)),
    readResource: (name, uri) => (real ? real.readResource(name, uri) : noServer(name)),
    close: async () => {
      await (opening ?? Promise.resolve(real))?.then((session) => session?.close());
    },
  };
}
