/**
 * What /mcp shows: each configured MCP server with its state (connected, failed and why, pending
 * approval, needs-auth), the server's own name and version when it told us, and the tools it
 * offers under their short names. The model sees them as `mcp__<server>__<tool>`; the person
 * configured `<server>` and reads the tool names the server gave.
 */
import type { McpServerStatus } from '../../mcp/connectMcpServers.js';
import type { McpServerStatusName } from '../../mcp/connectServer.js';
import { mcpToolName } from '../../mcp/toolName.js';
import { assertNever } from '../../util/assertNever.js';
import type { Paint } from './permissionQuestion.js';

/** Where servers are configured, for the empty case (the same sources as the -p mode's). */
const WHERE = '--mcp-config <file or JSON>, .mcp.json (approved in your settings), or mcpServers in ~/.claude.json';

/** The short name of each of `server`'s tools. A longer server name that also matches wins (`a` and `a__b`). */
export function toolsOf(server: string, servers: readonly string[], toolNames: readonly string[]): string[] {
  const prefixOf = (name: string) => mcpToolName(name, '');
  const prefix = prefixOf(server);
  const longer = servers.filter((s) => s !== server && prefixOf(s).startsWith(prefix)).map(prefixOf);
  return toolNames.filter((t) => t.startsWith(prefix) && !longer.some((p) => t.startsWith(p))).map((t) => t.slice(prefix.length));
}

function stateText(status: McpServerStatusName, paint: Paint): string {
  switch (status) {
    case 'connected':
      return paint('green', 'connected');
    case 'failed':
      return paint('red', 'failed');
    case 'pending':
      return paint('yellow', 'pending');
    case 'needs-auth':
      return paint('yellow', 'needs authentication');
    case 'disabled':
      return paint('dim', 'disabled');
    default:
      return assertNever(status, 'MCP server status');
  }
}

/** Words joined with ", " into rows of at most `width` columns, each after `indent`. */
function wrapList(words: readonly string[], indent: string, width: number): string[] {
  const rows: string[] = [];
  let row = '';
  for (const word of words) {
    const next = row === '' ? word : `${row}, ${word}`;
    if (row !== '' && indent.length + next.length + 1 > width) {
      rows.push(`${indent}${row},`);
      row = word;
    } else row = next;
  }
  if (row !== '') rows.push(`${indent}${row}`);
  return rows;
}

export function mcpReport(servers: readonly McpServerStatus[], toolNames: readonly string[], paint: Paint, columns: number): string {
  if (servers.length === 0) return `No MCP servers configured. Add one with ${WHERE}.`;
  const names = servers.map((s) => s.name);
  const width = Math.max(...names.map((n) => n.length));
  const lines = [`MCP servers (${servers.length}):`];
  for (const server of servers) {
    const tools = toolsOf(server.name, names, toolNames);
    const parts = [stateText(server.status, paint)];
    if (server.serverInfo) parts.push(`${server.serverInfo.name} ${server.serverInfo.version}`);
    if (server.status === 'connected') parts.push(`${tools.length} tool${tools.length === 1 ? '' : 's'}`);
    lines.push(`  ${server.name.padEnd(width)}  ${parts.join(' · ')}`);
    if (server.error) lines.push(`    ${paint('dim', server.error)}`);
    lines.push(...wrapList(tools, '    ', columns));
  }
  return lines.join('\n');
}
