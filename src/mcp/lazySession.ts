/**
 * `openMcpSession`, loading the MCP SDK only when there is a server to start or report: a run
 * without MCP servers (most runs) does not pay for loading it (about 0.3 s of start-up).
 */
import { ConfigurationError } from '../errors.js';
import type { McpSession, openMcpSession } from './mcpSession.js';

export type { McpSession };

const NO_MCP: McpSession = {
  servers: () => [],
  tools: () => [],
  prompts: () => [],
  refreshTools: (own) => own,
  signIn: async (name) => {
    throw new ConfigurationError(`no MCP server named "${name}" is configured`);
  },
  close: async () => undefined,
};

export async function openMcpSessionLazily(...args: Parameters<typeof openMcpSession>): Promise<McpSession> {
  const [servers, options] = args;
  if (Object.keys(servers).length === 0 && Object.keys(options.notStarted ?? {}).length === 0) return NO_MCP;
  const { openMcpSession: open } = await import('./mcpSession.js');
  return open(...args);
}
