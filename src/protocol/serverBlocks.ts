/**
 * Blocks of the tools the API runs itself: web search, web fetch, code execution (bash and text
 * editor), tool search, the advisor, MCP connectors, plus container uploads and server-side
 * compaction. The server streams both the call and its result inside the assistant message; the
 * client never runs them, it keeps them and sends them back unchanged, so the model sees its own
 * work on the next request (a programmatic tool call's `tool_use` names its `server_tool_use` as
 * `caller`, and the API rejects a history that lost it).
 *
 * Loose objects like the rest of the protocol: fields the API adds (`caller`, `encrypted_content`,
 * ...) are kept.
 */
import { z } from 'zod';

/*
 * The fields are getters (zod 4's deferred shape), as in content.ts: built at a schema's first
 * parse, not when the command loads (issue 20 §3).
 */

export const serverToolUseBlockSchema = z.looseObject({
  get type() {
    return z.literal('server_tool_use');
  },
  get id() {
    return z.string();
  },
  get name() {
    return z.string();
  },
  get input() {
    return z.record(z.string(), z.unknown());
  },
});

/** Result blocks of the server tools, each `{ type, tool_use_id, content }` (content is the tool's own shape). */
export const SERVER_TOOL_RESULT_TYPES = [
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'advisor_tool_result',
] as const;
export type ServerToolResultType = (typeof SERVER_TOOL_RESULT_TYPES)[number];

export const serverToolResultBlockSchema = z.looseObject({
  get type() {
    return z.enum(SERVER_TOOL_RESULT_TYPES);
  },
  get tool_use_id() {
    return z.string();
  },
  get content() {
    return z.unknown();
  },
});

/** A call to a tool of an MCP server the API connects to (`mcp_servers` in the request). */
export const mcpToolUseBlockSchema = z.looseObject({
  get type() {
    return z.literal('mcp_tool_use');
  },
  get id() {
    return z.string();
  },
  get name() {
    return z.string();
  },
  get server_name() {
    return z.string();
  },
  get input() {
    return z.record(z.string(), z.unknown());
  },
});

export const mcpToolResultBlockSchema = z.looseObject({
  get type() {
    return z.literal('mcp_tool_result');
  },
  get tool_use_id() {
    return z.string();
  },
  get is_error() {
    return z.boolean().optional();
  },
  get content() {
    return z.unknown();
  },
});

/** A file the code-execution container receives (a Files API id). */
export const containerUploadBlockSchema = z.looseObject({
  get type() {
    return z.literal('container_upload');
  },
  get file_id() {
    return z.string();
  },
});

/**
 * The server's summary of the conversation before it (server-side context compaction). Sent
 * back as is: the API then drops what the summary replaces; losing it undoes the compaction.
 * `content` is null when compaction produced nothing.
 */
export const compactionBlockSchema = z.looseObject({
  get type() {
    return z.literal('compaction');
  },
  get content() {
    return z.string().nullable();
  },
});

export const serverBlockSchemas = [
  serverToolUseBlockSchema,
  serverToolResultBlockSchema,
  mcpToolUseBlockSchema,
  mcpToolResultBlockSchema,
  containerUploadBlockSchema,
  compactionBlockSchema,
] as const;

export type ServerToolUseBlock = z.infer<typeof serverToolUseBlockSchema>;
export type ServerToolResultBlock = z.infer<typeof serverToolResultBlockSchema>;
export type McpToolUseBlock = z.infer<typeof mcpToolUseBlockSchema>;
export type McpToolResultBlock = z.infer<typeof mcpToolResultBlockSchema>;
export type ContainerUploadBlock = z.infer<typeof containerUploadBlockSchema>;
export type CompactionBlock = z.infer<typeof compactionBlockSchema>;

/** Blocks the server produces and consumes itself: kept and replayed, never run by the client. */
export type ServerBlock =
  | ServerToolUseBlock
  | ServerToolResultBlock
  | McpToolUseBlock
  | McpToolResultBlock
  | ContainerUploadBlock
  | CompactionBlock;
