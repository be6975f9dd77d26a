/**
 * The host's `initialize` request carries what the SDK's options say beyond the command line:
 * hook callbacks, a system prompt (replacing or appended), subagent definitions, the structured
 * output schema, in-process MCP servers, and (the SDK's `mcpServersDelivery: 'initialize'`, its
 * announced future default) the MCP servers, settings and disallowed tools that would otherwise
 * be `--mcp-config`, `--settings` and `--disallowedTools`. They are read before the run is
 * built, so the run is built once with them, exactly as if they had been flags.
 */
import { z } from 'zod';
import type { CliOptions } from '../args.js';
import type { PreparedRun } from '../buildRun.js';
import { packageVersion } from '../version.js';
import { LOCAL_COMMANDS } from './localCommands.js';
import { hostHooksSchema } from './hostHooks.js';

export const initializeRequestSchema = z.looseObject({
  subtype: z.literal('initialize'),
  hooks: hostHooksSchema.optional(),
  sdkMcpServers: z.array(z.string()).optional(),
  jsonSchema: z.record(z.string(), z.unknown()).optional(),
  // The SDK sends a string array (system prompt parts); older hosts a string.
  systemPrompt: z.union([z.string(), z.array(z.string())]).optional(),
  appendSystemPrompt: z.string().optional(),
  agents: z.record(z.string(), z.looseObject({ description: z.string(), prompt: z.string() })).optional(),
  mcpServers: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  disallowedTools: z.array(z.string()).optional(),
});

export type InitializeRequest = z.infer<typeof initializeRequestSchema>;

/** The options the run is built with: the command line's, with the initialize request's fields over them. */
export function optionsWithInitialize(options: CliOptions, init: InitializeRequest): CliOptions {
  const flagAgents = parsedAgents(options.agents);
  const systemPrompt = init.systemPrompt === undefined ? undefined : [init.systemPrompt].flat().join('\n\n');
  return {
    ...options,
    ...(systemPrompt === undefined ? {} : { systemPrompt, systemPromptFile: undefined }),
    ...(init.appendSystemPrompt === undefined ? {} : { appendSystemPrompt: init.appendSystemPrompt, appendSystemPromptFile: undefined }),
    // --agents that is not valid JSON is left for the run to report.
    ...(init.agents === undefined || flagAgents === undefined ? {} : { agents: JSON.stringify({ ...flagAgents, ...init.agents }) }),
    ...(init.jsonSchema === undefined ? {} : { jsonSchema: JSON.stringify(init.jsonSchema) }),
    // The servers join --mcp-config's as one more inline config (same validation and scope).
    ...(init.mcpServers === undefined ? {} : { mcpConfig: [...options.mcpConfig, JSON.stringify({ mcpServers: init.mcpServers })] }),
    // A --settings on the command line is the host's too; the request only fills it when absent.
    ...(init.settings === undefined || options.settings !== undefined ? {} : { settings: JSON.stringify(init.settings) }),
    ...(init.disallowedTools === undefined ? {} : { disallowedTools: [...options.disallowedTools, ...init.disallowedTools] }),
  };
}

/**
 * The initialize answer's confirmations (`mcp_servers_applied`, `settings_applied`,
 * `disallowed_tools_applied`) for the fields the request carried. Settings are not applied when
 * `--settings` was given too (the flag's win); managed settings never are (rxagent has no
 * managed-policy layer), so no confirmation is sent for them.
 */
export function appliedFields(init: InitializeRequest, options: CliOptions): Record<string, boolean> {
  return {
    ...(init.mcpServers === undefined ? {} : { mcp_servers_applied: true }),
    ...(init.settings === undefined ? {} : { settings_applied: options.settings === undefined }),
    ...(init.disallowedTools === undefined ? {} : { disallowed_tools_applied: true }),
  };
}

/** The `initialize` answer: the session's commands, agents, model, account and pid, and what the request's fields did. */
export function initializeAnswer(
  run: Pick<PreparedRun, 'slashCommands' | 'agents' | 'model' | 'apiKeySource'>,
  facts: { readonly hooksApplied: boolean; readonly applied?: Record<string, boolean> },
): Record<string, unknown> {
  return {
    commands: [...LOCAL_COMMANDS, ...run.slashCommands].map((c) => ({ ...c })),
    agents: run.agents.map((a) => ({ ...a })),
    output_style: 'default',
    available_output_styles: ['default'],
    models: [{ value: run.model, displayName: run.model, description: 'The model this session uses' }],
    account: { apiKeySource: run.apiKeySource },
    pid: process.pid,
    claude_code_version: packageVersion(),
    ...(facts.hooksApplied ? { hooks_applied: true } : {}),
    // The SDK ends a session whose engine does not confirm the fields it sent in initialize.
    ...facts.applied,
  };
}

function parsedAgents(json: string | undefined): Record<string, unknown> | undefined {
  if (json === undefined) return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
