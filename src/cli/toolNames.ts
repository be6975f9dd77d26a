/**
 * Which tools a run offers, from `--tools` and `--disallowedTools`, with Claude Code's meaning:
 * `--tools` lists the tools to offer (all when absent); a bare tool name among the deny rules
 * (`--disallowedTools Bash`) removes that tool from what the model is offered at all, while a
 * rule with content (`Bash(rm:*)`) only refuses matching calls. Claude Code tool names rxagent
 * does not implement are ignored (the run warns once) so scripts written for it still start;
 * any other unknown name is a usage error (a typo should not silently drop a tool).
 * `WebSearch` and `WebFetch` are the API's server tools: named in `--tools`, their definitions
 * are sent and the API runs them (see `requestExtras.ts`); they are never on by default.
 */
import { AGENT_TOOL_NAME } from '../agents/agentTool.js';
import { BUILTIN_TOOL_NAMES, type BuiltinToolName } from '../tools/builtin/createBuiltinTools.js';
import { UsageError } from './args.js';

/** Claude Code's tool names that have no rxagent tool (yet). */
const CLAUDE_CODE_ONLY_TOOLS: ReadonlySet<string> = new Set([
  'AskUserQuestion',
  'BashOutput',
  'ExitPlanMode',
  'KillBash',
  'KillShell',
  'LS',
  'ListMcpResourcesTool',
  'MultiEdit',
  'NotebookEdit',
  'NotebookRead',
  'ReadMcpResourceTool',
  'Skill',
  'SlashCommand',
  'TodoRead',
  'TodoWrite',
]);

/** Claude Code's names of the API's server tools (see `SERVER_TOOLS`). */
const SERVER_TOOL_NAMES: readonly string[] = ['WebSearch', 'WebFetch'];

/** Whether a Claude Code tool name has no rxagent tool a definition could be given (server tools included). */
export function isClaudeCodeOnlyTool(name: string): boolean {
  return CLAUDE_CODE_ONLY_TOOLS.has(name) || SERVER_TOOL_NAMES.includes(name);
}

/** Claude Code's older name of the Agent tool. */
const ALIASES: Readonly<Record<string, string>> = { Task: AGENT_TOOL_NAME };

export interface ResolvedTools {
  readonly builtins: BuiltinToolName[];
  readonly agent: boolean;
  /** Server tools asked for by name (`WebSearch`, `WebFetch`), not removed by a deny rule. */
  readonly server: string[];
  /** Claude Code tool names asked for that rxagent does not have. */
  readonly ignored: string[];
}

export function resolveToolNames(wanted: readonly string[] | undefined, denyRules: readonly string[] = []): ResolvedTools {
  const removed = new Set(denyRules.filter((rule) => !rule.includes('(')).map((name) => ALIASES[name] ?? name));
  const known: readonly string[] = [...BUILTIN_TOOL_NAMES, AGENT_TOOL_NAME];
  const names = (wanted ?? known).map((name) => ALIASES[name] ?? name);
  const ignored = names.filter((name) => CLAUDE_CODE_ONLY_TOOLS.has(name) || name.startsWith('mcp__'));
  const unknown = names.filter((name) => !known.includes(name) && !ignored.includes(name) && !SERVER_TOOL_NAMES.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(`--tools: unknown tool ${unknown.join(', ')} (known: ${known.join(', ')})`);
  }
  const offered = names.filter((name) => known.includes(name) && !removed.has(name));
  return {
    builtins: offered.filter((n): n is BuiltinToolName => n !== AGENT_TOOL_NAME),
    agent: offered.includes(AGENT_TOOL_NAME),
    server: [...new Set(names.filter((name) => SERVER_TOOL_NAMES.includes(name) && !removed.has(name)))],
    // MCP tools are configured by their servers; naming them in --tools is not worth a warning.
    ignored: ignored.filter((name) => !name.startsWith('mcp__')),
  };
}
