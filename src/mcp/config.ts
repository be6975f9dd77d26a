/**
 * MCP server configurations in Claude Code's shapes:
 *
 * ```json
 * { "mcpServers": {
 *     "files":  { "command": "node", "args": ["server.js"], "env": { "ROOT": "${HOME}/x" } },
 *     "remote": { "type": "http", "url": "https://host/mcp", "headers": { "Authorization": "Bearer ${TOKEN}" } },
 *     "legacy": { "type": "sse", "url": "https://host/sse" } } }
 * ```
 *
 * `"type": "stdio"` is optional for command servers. Library users may also hand over an MCP
 * transport of their own (`{ type: "transport", transport }`, e.g. an in-process server linked
 * by the SDK's `InMemoryTransport`, or the Agent SDK's `mcp_message` bridge).
 */
import { readFileSync } from 'node:fs';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { ConfigurationError } from '../errors.js';
import { expandRecord, expandString, type EnvLookup } from './expandEnv.js';
import { lazySchema } from '../util/lazySchema.js';

// Every schema here is built at the first config parsed: a run without MCP servers never builds one (lazySchema says why).
const stringRecord = lazySchema(() => z.record(z.string(), z.string()));

export const stdioServerSchema = lazySchema(() =>
  z.object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: stringRecord().optional(),
  }),
);

/**
 * Claude Code's `oauth` of a remote server: a client registered by hand (`clientId`, and a
 * `clientSecret` for a confidential one), a fixed loopback port for the redirect URI
 * (`http://localhost:<callbackPort>/callback`, else a free port) and the scopes to ask for.
 */
export const oauthSettingsSchema = lazySchema(() =>
  z.object({
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    callbackPort: z.number().int().min(1).max(65535).optional(),
    scopes: z.string().min(1).optional(),
  }),
);

export const remoteServerSchema = lazySchema(() =>
  z.object({
    type: z.enum(['http', 'sse']),
    url: z.string().min(1),
    headers: stringRecord().optional(),
    oauth: oauthSettingsSchema().optional(),
  }),
);

export const serverConfigSchema = lazySchema(() => z.union([stdioServerSchema(), remoteServerSchema()]));

export type McpStdioServerConfig = z.infer<ReturnType<typeof stdioServerSchema>>;
export type McpRemoteServerConfig = z.infer<ReturnType<typeof remoteServerSchema>>;
export type McpOAuthSettings = z.infer<ReturnType<typeof oauthSettingsSchema>>;

/** A server reached over a transport the caller made (library only; not in JSON files). */
export interface McpTransportServerConfig {
  readonly type: 'transport';
  /** Called once per connection; the transport must not be started yet. */
  readonly transport: () => Transport;
}

/** One server: a command (stdio), a URL (Streamable HTTP or SSE), or a transport of the caller's. */
export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig | McpTransportServerConfig;

/** Servers by name, as in the `mcpServers` key. */
export type McpServersConfig = Readonly<Record<string, McpServerConfig>>;

const fileSchema = lazySchema(() => z.looseObject({ mcpServers: z.record(z.string(), z.unknown()) }));

/**
 * The servers of one `{"mcpServers": {...}}` document. Each server is checked on its own: a
 * malformed one is a ConfigurationError naming the server, the source and the field.
 */
export function parseMcpServers(document: unknown, source: string): Record<string, McpServerConfig> {
  const file = fileSchema().safeParse(document);
  if (!file.success) throw new ConfigurationError(`${source}: expected {"mcpServers": {"<name>": {...}}}`);
  return parseServerRecord(file.data.mcpServers, source);
}

/** A bare `{"<name>": {...}}` record (the `mcpServers` value of a settings file). */
export function parseServerRecord(record: Readonly<Record<string, unknown>>, source: string): Record<string, McpServerConfig> {
  const out: Record<string, McpServerConfig> = {};
  for (const [name, raw] of Object.entries(record)) {
    if (name === '') throw new ConfigurationError(`${source}: an MCP server needs a non-empty name`);
    const parsed = serverConfigSchema().safeParse(raw);
    if (!parsed.success) throw new ConfigurationError(`${source}: MCP server "${name}": ${describeShapeError(raw)}`);
    out[name] = parsed.data;
  }
  return out;
}

function describeShapeError(raw: unknown): string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'expected an object';
  const fields = raw as Record<string, unknown>;
  const type = fields['type'];
  if (type === undefined || type === 'stdio') {
    if (typeof fields['command'] !== 'string' || fields['command'] === '') return '"command" must be a non-empty string';
    if (fields['args'] !== undefined && !isStringArray(fields['args'])) return '"args" must be an array of strings';
    return '"env" must map names to strings';
  }
  if (type === 'http' || type === 'sse') {
    if (typeof fields['url'] !== 'string' || fields['url'] === '') return '"url" must be a non-empty string';
    if (fields['oauth'] !== undefined && !oauthSettingsSchema().safeParse(fields['oauth']).success) return '"oauth" must be {clientId?, clientSecret?, callbackPort? (a port number), scopes? (a string)}';
    return '"headers" must map names to strings';
  }
  return `unknown "type" ${JSON.stringify(type)} (expected "stdio", "http" or "sse")`;
}

function isStringArray(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/**
 * `--mcp-config` takes a file path or the JSON itself, as Claude Code's does: text that starts
 * with `{` is JSON, anything else names a file (relative to `cwd`).
 */
export function loadMcpConfigArgument(argument: string, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): Record<string, McpServerConfig> {
  const trimmed = argument.trim();
  const inline = trimmed.startsWith('{');
  const source = inline ? '--mcp-config (inline JSON)' : `--mcp-config ${argument}`;
  let text: string;
  try {
    text = inline ? trimmed : readFile(argument);
  } catch (error) {
    throw new ConfigurationError(`${source}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  return parseMcpServers(parseJson(text, source), source);
}

export function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConfigurationError(`${source}: not valid JSON (${(error as Error).message})`);
  }
}

export function isStdioConfig(config: McpServerConfig): config is McpStdioServerConfig {
  return config.type === undefined || config.type === 'stdio';
}

/**
 * A configuration with `${VAR}` / `${VAR:-default}` expanded. Unset variables without a default
 * are listed in `missing`: such a server is reported as failed instead of being started with a
 * literal `${VAR}` in its command line or headers.
 */
export function expandServerConfig(config: McpServerConfig, env: EnvLookup): { readonly config: McpServerConfig; readonly missing: readonly string[] } {
  const missing: string[] = [];
  if (config.type === 'transport') return { config, missing };
  if (!isStdioConfig(config)) {
    const headers = expandRecord(config.headers, env, missing);
    return { config: { ...config, url: expandString(config.url, env, missing), ...(headers ? { headers } : {}) }, missing };
  }
  const envValues = expandRecord(config.env, env, missing);
  return {
    config: {
      ...config,
      command: expandString(config.command, env, missing),
      ...(config.args ? { args: config.args.map((a) => expandString(a, env, missing)) } : {}),
      ...(envValues ? { env: envValues } : {}),
    },
    missing,
  };
}
