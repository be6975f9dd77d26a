/** MCP servers as tools: configuration, connection, the tool adapter and the loop wrapper. */
export { connectMcpServers, EMPTY_MCP_TOOLS, mergeSnapshots } from './connectMcpServers.js';
export type { ConnectMcpServersOptions, McpServerStatus, McpTools } from './connectMcpServers.js';
export { connectMcpServer } from './connectServer.js';
export type { ConnectServerOptions, McpServerSnapshot, McpServerStatusName, SkippedTool } from './connectServer.js';
export { expandServerConfig, loadMcpConfigArgument, parseMcpServers, parseServerRecord } from './config.js';
export type { McpRemoteServerConfig, McpServerConfig, McpServersConfig, McpStdioServerConfig, McpTransportServerConfig } from './config.js';
export { adaptMcpTool, McpToolError } from './toolAdapter.js';
export type { AdaptedTool, McpProgress } from './toolAdapter.js';
export { createMcpCaller } from './caller.js';
export type { McpCaller, McpCallOptions, McpProgressUpdate } from './caller.js';
export { createResourceTools, LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL } from './resourceTools.js';
export { DEFAULT_MCP_LIMITS, mcpLimitsFromEnv } from './limits.js';
export type { McpLimits } from './limits.js';
export { mcpToolName } from './toolName.js';
export { MCP_WARNING_CODE, withMcpServers } from './withMcpServers.js';
export { expandMcpPrompt, McpPromptError, parsePromptCommand, promptArguments, promptMessageOf, usageOf } from './prompts.js';
export type { McpPrompt, McpPromptArgument } from './prompts.js';
