/**
 * `ListMcpResourcesTool` and `ReadMcpResourceTool` (Claude Code's names): offered when at least
 * one connected server has resources. Both only read, so both are concurrency-safe.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { defineTool } from '../tools/defineTool.js';
import type { Tool, ToolResultContent } from '../tools/types.js';
import { renderMcpResult } from './callResult.js';
import type { McpLimits } from './limits.js';

export const LIST_RESOURCES_TOOL = 'ListMcpResourcesTool';
export const READ_RESOURCE_TOOL = 'ReadMcpResourceTool';

/** Servers that offer resources, by their configured name. */
export type ResourceServers = ReadonlyMap<string, Pick<Client, 'listResources' | 'readResource'>>;

export function createResourceTools(servers: ResourceServers, limits: McpLimits): Tool[] {
  if (servers.size === 0) return [];
  const names = [...servers.keys()];
  const serverFor = (server: string) => {
    const client = servers.get(server);
    if (!client) throw new Error(`no MCP server named "${server}" offers resources (servers with resources: ${names.join(', ')})`);
    return client;
  };
  const list = defineTool({
    name: LIST_RESOURCES_TOOL,
    description: `Lists the resources of the connected MCP servers (${names.join(', ')}); give "server" to list only one.`,
    inputSchema: z.strictObject({ server: z.string().optional().describe('Only this server') }),
    isConcurrencySafe: true,
    interruptBehavior: 'cancel',
    timeoutMs: limits.toolTimeoutMs,
    call: async ({ server }, { signal }) => {
      const chosen = server === undefined ? names : [server];
      const all: { server: string; uri: string; name: string; mimeType?: string; description?: string }[] = [];
      for (const s of chosen) {
        const client = serverFor(s);
        let cursor: string | undefined;
        do {
          const page = await client.listResources(cursor === undefined ? {} : { cursor }, { signal, timeout: limits.toolTimeoutMs });
          for (const r of page.resources) {
            all.push({
              server: s,
              uri: r.uri,
              name: r.name,
              ...(r.mimeType !== undefined ? { mimeType: r.mimeType } : {}),
              ...(r.description !== undefined ? { description: r.description } : {}),
            });
          }
          cursor = page.nextCursor;
        } while (cursor !== undefined);
      }
      return all;
    },
    renderResult: (all): ToolResultContent =>
      renderMcpResult({ content: [{ type: 'text', text: all.length === 0 ? 'No resources found.' : JSON.stringify(all, null, 2) }] }, limits.maxOutputTokens),
  });
  const read = defineTool({
    name: READ_RESOURCE_TOOL,
    description: `Reads one resource of a connected MCP server (${names.join(', ')}) by its URI.`,
    inputSchema: z.strictObject({ server: z.string().describe('The MCP server name'), uri: z.string().describe('The resource URI') }),
    isConcurrencySafe: true,
    interruptBehavior: 'cancel',
    timeoutMs: limits.toolTimeoutMs,
    call: async ({ server, uri }, { signal }) => serverFor(server).readResource({ uri }, { signal, timeout: limits.toolTimeoutMs }),
    renderResult: (result): ToolResultContent =>
      renderMcpResult({ content: result.contents.map((resource) => ({ type: 'resource' as const, resource })) }, limits.maxOutputTokens),
  });
  return [list, read];
}
