/**
 * `mcp__<server>__<tool>`: how MCP tools are named to the model (Claude Code's scheme). Characters
 * the Messages API does not accept in tool names become `_`.
 */

export const MCP_TOOL_PREFIX = 'mcp__';

/** A server or tool name with every character outside `[A-Za-z0-9_-]` replaced by `_`. */
export function normalizeNamePart(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

export function mcpToolName(serverName: string, toolName: string): string {
  return `${MCP_TOOL_PREFIX}${normalizeNamePart(serverName)}__${normalizeNamePart(toolName)}`;
}
