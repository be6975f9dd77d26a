/**
 * The host's MCP servers during a session: its in-process ones (`createSdkMcpServer`, reached
 * over `mcp_message`) and what its `mcp_set_servers` names. An in-process server keeps one
 * config object per name, so naming it again keeps its connection; a process server (stdio,
 * http, sse) is checked like a configured one, and a malformed one is that server's error in
 * the answer, never the whole request's.
 */
import { parseServerRecord, type McpServerConfig } from '../../mcp/config.js';
import type { McpServerControl } from '../../mcp/serverControl.js';
import type { PreparedRun } from '../buildRun.js';
import type { ControlChannel } from './controlChannel.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { sdkMcpServerConfigs, type LiveBridges } from './sdkMcpBridge.js';

export interface HostMcpServers {
  /** The servers `initialize` named, for the run's start. */
  configs(): Record<string, McpServerConfig>;
  /** The one config of an in-process server of this name. */
  configFor(name: string): McpServerConfig;
  /** A message the host's server sent on its own (`mcp_message` to us): false when that server has no open connection. */
  deliver(name: string, message: JSONRPCMessage): boolean;
}

export function createHostMcpServers(initial: readonly string[], channel: ControlChannel): HostMcpServers {
  const byName = new Map<string, McpServerConfig>();
  const live: LiveBridges = new Map();
  const configFor = (name: string): McpServerConfig => {
    let config = byName.get(name);
    if (!config) {
      config = sdkMcpServerConfigs([name], channel, live)[name] as McpServerConfig;
      byName.set(name, config);
    }
    return config;
  };
  return {
    configs: () => Object.fromEntries(initial.map((name) => [name, configFor(name)])),
    configFor,
    deliver: (name, message) => {
      const bridge = live.get(name);
      bridge?.deliver(message);
      return bridge !== undefined;
    },
  };
}

export function mcpControlOf(run: PreparedRun): McpServerControl {
  if (!run.mcpControl) throw new Error('this run cannot change its MCP servers');
  return run.mcpControl;
}

const isSdkServer = (value: unknown) => typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'sdk';

/** `mcp_set_servers`: the SDK's `McpSetServersResult`. `applied` is told the servers the run now has from the host (a /clear's new run gets them too). */
export async function setHostMcpServers(run: PreparedRun, raw: Record<string, unknown>, host: HostMcpServers | undefined, applied?: (servers: Record<string, McpServerConfig>) => void): Promise<Record<string, unknown>> {
  const servers: Record<string, McpServerConfig> = {};
  const errors: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (isSdkServer(value)) {
      if (host) servers[name] = host.configFor(name);
      else errors[name] = 'an in-process (sdk) server needs a host that sent initialize';
      continue;
    }
    try {
      Object.assign(servers, parseServerRecord({ [name]: value }, 'mcp_set_servers'));
    } catch (error) {
      errors[name] = (error as Error).message;
    }
  }
  const result = await mcpControlOf(run).replaceServers(servers);
  applied?.(servers);
  return { added: result.added, removed: result.removed, errors: { ...errors, ...result.errors } };
}
