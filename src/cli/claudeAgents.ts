/**
 * Claude Code's agent files (`.claude/agents/*.md`, `~/.claude/agents/*.md`), read for rxagent.
 * They were written for Claude Code, so two things are forgiven that `.rxagent/agents` files are
 * not: an unreadable file is one warning naming it (the others still load), and tools rxagent
 * does not have (`TodoWrite`, `WebFetch`, ...) are left out of the definition's list with a
 * warning instead of making the agent fail when it starts. `Task` is Claude Code's old name of
 * the Agent tool.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAgentMarkdown, type AgentDefinition } from '../agents/definitions.js';
import { AGENT_TOOL_NAME } from '../agents/agentTool.js';
import { isClaudeCodeOnlyTool } from './toolNames.js';

export async function loadClaudeAgentDirectory(dir: string, onWarning: (message: string) => void): Promise<AgentDefinition[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') onWarning(`${dir}: ${(error as Error).message}; its agents are not loaded`);
    return [];
  }
  const out: AgentDefinition[] = [];
  for (const name of names.filter((n) => n.toLowerCase().endsWith('.md')).sort()) {
    const path = join(dir, name);
    try {
      out.push(withRxagentTools(parseAgentMarkdown(await readFile(path, 'utf8'), path), onWarning));
    } catch (error) {
      onWarning(`${(error as Error).message}; that agent is not loaded`);
    }
  }
  return out;
}

function withRxagentTools(definition: AgentDefinition, onWarning: (message: string) => void): AgentDefinition {
  if (!definition.tools) return definition;
  const renamed = definition.tools.map((t) => (t === 'Task' ? AGENT_TOOL_NAME : t));
  const dropped = renamed.filter(isClaudeCodeOnlyTool);
  if (dropped.length > 0) onWarning(`agent ${definition.name} (${definition.source}): ${dropped.join(', ')} ${dropped.length === 1 ? 'is a tool' : 'are tools'} rxagent does not have; left out`);
  return { ...definition, tools: renamed.filter((t) => !isClaudeCodeOnlyTool(t)) };
}
