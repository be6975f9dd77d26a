/**
 * What a consumer is told about MCP servers as their state changes: a server that failed, needs
 * credentials or was not started, and tools that could not be offered. Each is said once, when
 * it first happens.
 */
import type { McpTools } from './connectMcpServers.js';

export function mcpWarnings(previous: McpTools | undefined, next: McpTools): string[] {
  const out: string[] = [];
  for (const server of next.servers) {
    const before = previous?.servers.find((s) => s.name === server.name);
    if (before?.status === server.status) continue;
    const why = server.error ? `: ${server.error}` : '';
    switch (server.status) {
      case 'connected':
        break;
      case 'failed':
        out.push(`MCP server "${server.name}" ${before?.status === 'connected' ? 'stopped' : 'failed'}${why}; the run goes on without its tools`);
        break;
      case 'needs-auth':
        out.push(`MCP server "${server.name}" needs authentication${why}; the run goes on without its tools`);
        break;
      case 'pending':
        // A server connecting again (after a sign-in) says how that went once it has.
        if (before === undefined) out.push(`MCP server "${server.name}" was not started${why}`);
        break;
      case 'disabled':
        // The person refused it (disabledMcpjsonServers): /mcp and init's mcp_servers list it; no warning.
        break;
      default: {
        const unknownStatus: never = server.status;
        out.push(`MCP server "${server.name}" is in state ${String(unknownStatus)}`);
      }
    }
  }
  const said = new Set((previous?.skippedTools ?? []).map((t) => `${t.server}\0${t.name}`));
  for (const tool of next.skippedTools) {
    if (said.has(`${tool.server}\0${tool.name}`)) continue;
    out.push(`MCP server "${tool.server}": tool "${tool.name}" is not offered because ${tool.reason}`);
  }
  return out;
}
