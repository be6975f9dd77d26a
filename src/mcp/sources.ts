/**
 * Where the command finds MCP servers, with Claude Code's scopes and precedence:
 *
 * | scope   | files                                                                  | approval |
 * |---------|------------------------------------------------------------------------|----------|
 * | user    | `~/.claude.json` `mcpServers`, `~/.claude/settings.json`, `~/.rxagent/settings.json` | no |
 * | project | `<cwd>/.mcp.json`, `<cwd>/.claude/settings.json`, `<cwd>/.rxagent/settings.json` | yes |
 * | local   | `~/.claude.json` `projects[<cwd>].mcpServers`, `<cwd>/.claude/settings.local.json` | no |
 * | dynamic | `--mcp-config <file-or-json>...`                                        | no       |
 *
 * A name in several scopes takes the later row's entry (dynamic > local > project > user).
 * `--strict-mcp-config` keeps only the dynamic servers.
 *
 * Project servers come with the repository, so they start only once approved:
 * `enableAllProjectMcpServers: true` or the name in `enabledMcpjsonServers` (and not in
 * `disabledMcpjsonServers`). Approvals count only from files the user controls (user and local
 * scope, `--settings`), never from the project's own checked-in files, which could otherwise
 * approve themselves. `disabledMcpjsonServers` wins over both (as in Claude Code): a refused
 * server is reported `disabled`. A server neither approved nor refused is not started, is
 * reported `pending`, and is listed in `awaitingApproval` for a view that can ask the person.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { z } from 'zod';
import { ConfigurationError } from '../errors.js';
import { loadMcpConfigArgument, parseJson, parseServerRecord, type McpServerConfig } from './config.js';
import type { McpServerStatusName } from './connectServer.js';
import { lazySchema } from '../util/lazySchema.js';

export type McpScope = 'user' | 'project' | 'local' | 'dynamic';

export interface McpSourcesInput {
  readonly cwd: string;
  readonly homeDir: string;
  /** `--mcp-config` values, in order. */
  readonly mcpConfig: readonly string[];
  readonly strict: boolean;
  /** `--settings <file>` (its approvals count). */
  readonly settingsFile?: string;
  /** Answers given in this session that may not have reached a file (they count as trusted). */
  readonly sessionApprovals?: McpApprovals;
}

/** Approvals in the settings files' own keys. */
export interface McpApprovals {
  readonly enableAllProjectMcpServers?: boolean;
  readonly enabledMcpjsonServers?: readonly string[];
  readonly disabledMcpjsonServers?: readonly string[];
}

export interface AwaitingApproval {
  readonly name: string;
  readonly config: McpServerConfig;
}

export interface ResolvedMcpServers {
  /** The servers to start, in the order they were found. */
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  /** Servers found but not started, with the status to report and why. */
  readonly notStarted: Readonly<Record<string, { readonly status: McpServerStatusName; readonly reason: string }>>;
  readonly scopes: Readonly<Record<string, McpScope>>;
  /** Project servers neither approved nor refused yet, in the order found (also in `notStarted`). */
  readonly awaitingApproval: readonly AwaitingApproval[];
}

const MAX_CONFIG_BYTES = 1 << 20;

// Built at the first file that exists (lazySchema says why): most runs find none of them.
const approvalSchema = lazySchema(() =>
  z.looseObject({
    mcpServers: z.record(z.string(), z.unknown()).optional(),
    enableAllProjectMcpServers: z.boolean().optional(),
    enabledMcpjsonServers: z.array(z.string()).optional(),
    disabledMcpjsonServers: z.array(z.string()).optional(),
  }),
);
type McpKeys = z.infer<ReturnType<typeof approvalSchema>>;

const claudeJsonSchema = lazySchema(() =>
  approvalSchema().extend({
    projects: z.record(z.string(), approvalSchema()).optional(),
  }),
);

const mcpJsonSchema = lazySchema(() => z.looseObject({ mcpServers: z.record(z.string(), z.unknown()) }));

/** A small JSON file's MCP keys; `undefined` when the file does not exist. */
function readKeysOrSkip<T extends z.ZodType>(file: string, schema: () => T): z.infer<T> | undefined {
  try {
    return readKeys(file, schema);
  } catch (error) {
    if (error instanceof ConfigurationError) return undefined;
    throw error;
  }
}

/** `schema` is called only once the file is read, so a missing file never builds it. */
function readKeys<T extends z.ZodType>(file: string, schema: () => T): z.infer<T> | undefined {
  let text: string;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new ConfigurationError(`${file}: not a regular file`);
    if (st.size > MAX_CONFIG_BYTES) throw new ConfigurationError(`${file}: ${st.size} bytes is too large for a configuration file`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof ConfigurationError) throw error;
    throw new ConfigurationError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const parsed = schema().safeParse(parseJson(text, file));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new ConfigurationError(`${file}: ${issues}`);
  }
  return parsed.data as z.infer<T>;
}

export function resolveMcpServers(input: McpSourcesInput): ResolvedMcpServers {
  const cwd = resolve(input.cwd);
  const dynamic: Record<string, McpServerConfig> = {};
  for (const argument of input.mcpConfig) {
    Object.assign(dynamic, loadMcpConfigArgument(argument.trim().startsWith('{') ? argument : resolve(cwd, argument)));
  }
  const scopes: Record<string, McpScope> = {};
  const servers: Record<string, McpServerConfig> = {};
  const add = (found: Readonly<Record<string, McpServerConfig>>, scope: McpScope) => {
    for (const [name, config] of Object.entries(found)) {
      delete servers[name];
      servers[name] = config;
      scopes[name] = scope;
    }
  };
  if (input.strict) {
    add(dynamic, 'dynamic');
    return { servers, notStarted: {}, scopes, awaitingApproval: [] };
  }

  const claudeJsonFile = join(input.homeDir, '.claude.json');
  const claudeJson = readKeys(claudeJsonFile, claudeJsonSchema);
  const localProject = claudeJson?.projects?.[cwd];
  const userFiles = [join(input.homeDir, '.claude', 'settings.json'), join(input.homeDir, '.rxagent', 'settings.json')];
  const projectSettingsFiles = [join(cwd, '.claude', 'settings.json'), join(cwd, '.rxagent', 'settings.json')];
  const localFile = join(cwd, '.claude', 'settings.local.json');
  const explicit = input.settingsFile !== undefined ? resolve(cwd, input.settingsFile) : undefined;

  const serversOf = (keys: McpKeys | undefined, source: string) => (keys?.mcpServers ? parseServerRecord(keys.mcpServers, source) : {});
  // A `.claude/` settings file rxagent cannot read is a warning from loadSettings, not the end of the run.
  const readSettingsKeys = (f: string) => (f.includes(`${sep}.claude${sep}`) ? readKeysOrSkip(f, approvalSchema) : readKeys(f, approvalSchema));
  const userKeys = userFiles.map((f) => ({ file: f, keys: readSettingsKeys(f) }));
  const projectKeys = projectSettingsFiles.map((f) => ({ file: f, keys: readSettingsKeys(f) }));
  const localKeys = readSettingsKeys(localFile);
  const explicitKeys = explicit !== undefined ? readKeys(explicit, approvalSchema) : undefined;
  const mcpJsonFile = join(cwd, '.mcp.json');
  const mcpJson = readKeys(mcpJsonFile, mcpJsonSchema);

  add(serversOf(claudeJson, `${claudeJsonFile} (mcpServers)`), 'user');
  for (const { file, keys } of userKeys) add(serversOf(keys, file), 'user');
  add(mcpJson ? parseServerRecord(mcpJson.mcpServers, mcpJsonFile) : {}, 'project');
  for (const { file, keys } of projectKeys) add(serversOf(keys, file), 'project');
  add(serversOf(localProject, `${claudeJsonFile} (projects["${cwd}"].mcpServers)`), 'local');
  add(serversOf(localKeys, localFile), 'local');
  add(dynamic, 'dynamic');

  // Approvals, from the files the user controls only.
  const trusted: McpApprovals[] = [claudeJson, ...userKeys.map((u) => u.keys), localProject, localKeys, explicitKeys, input.sessionApprovals].filter((k) => k !== undefined);
  const all = trusted.some((k) => k.enableAllProjectMcpServers === true);
  const enabled = new Set(trusted.flatMap((k) => k.enabledMcpjsonServers ?? []));
  const disabled = new Set(trusted.flatMap((k) => k.disabledMcpjsonServers ?? []));
  const notStarted: Record<string, { status: McpServerStatusName; reason: string }> = {};
  const awaitingApproval: AwaitingApproval[] = [];
  for (const [name, config] of Object.entries(servers)) {
    if (scopes[name] !== 'project') continue;
    if (disabled.has(name)) {
      notStarted[name] = { status: 'disabled', reason: 'refused: listed in "disabledMcpjsonServers" (remove it there to be asked again)' };
    } else if (!all && !enabled.has(name)) {
      notStarted[name] = {
        status: 'pending',
        reason: 'it is a project server that has not been approved (add it to "enabledMcpjsonServers" or set "enableAllProjectMcpServers": true in your user or local settings)',
      };
      awaitingApproval.push({ name, config });
    }
    if (notStarted[name]) delete servers[name];
  }
  return { servers, notStarted, scopes, awaitingApproval };
}
