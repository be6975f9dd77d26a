/**
 * The command's subagent wiring: which definitions exist (`~/.claude/agents`, `.claude/agents`,
 * `.rxagent/agents/*.md`, then `--agents <json>`, later ones replacing earlier ones of the same
 * name), which permission mode
 * a child runs under, and where a child's transcript goes.
 *
 * Child transcripts live beside the parent's session, in `<sessions>/<parent>/subagents/
 * <agentId>.jsonl` (in a database, under a workspace of their own): out of the project's list, so
 * `--continue` and `--resume` never see them and the parent's own transcript holds only the
 * parent's conversation.
 */
import { join } from 'node:path';
import { loadAgentDirectory, mergeAgentDefinitions, parseAgentsJson, type AgentDefinition } from '../agents/definitions.js';
import type { SettingSource } from './args.js';
import { loadClaudeAgentDirectory } from './claudeAgents.js';
import type { TranscriptRecord, TranscriptSink } from '../loop/seams.js';
import type { PermissionMode } from '../permissions/modes.js';
import { startSession, type OpenedSession } from '../session/sessions.js';
import type { SessionStore } from '../session/store.js';

/** Where Claude Code's agent files are read from, beside `.rxagent/agents`. */
export interface ClaudeAgentSources {
  /** `~/.claude/agents` is read when given (and `user` is among the sources). */
  readonly homeDir?: string;
  /** `--setting-sources`: `user` and `project` choose the `.claude/agents` directories (default both). */
  readonly sources?: readonly SettingSource[];
  /** One warning per unreadable `.claude` agent file (the others still load). */
  readonly onWarning?: (message: string) => void;
}

/**
 * Definitions by name, later sources winning, in Claude Code's precedence: `~/.claude/agents`,
 * then the project's `.claude/agents`, then `.rxagent/agents` (rxagent's own project files), then
 * `--agents` (the command line wins, as Claude Code's CLI-defined agents do).
 */
export async function loadCliAgentDefinitions(cwd: string, agentsJson: string | undefined, claude: ClaudeAgentSources = {}): Promise<AgentDefinition[]> {
  const wanted = (source: SettingSource) => claude.sources === undefined || claude.sources.includes(source);
  const warn = claude.onWarning ?? (() => undefined);
  const user = claude.homeDir !== undefined && wanted('user') ? await loadClaudeAgentDirectory(join(claude.homeDir, '.claude', 'agents'), warn) : [];
  const project = wanted('project') ? await loadClaudeAgentDirectory(join(cwd, '.claude', 'agents'), warn) : [];
  const fromFiles = await loadAgentDirectory(join(cwd, '.rxagent', 'agents'));
  const fromFlag = agentsJson === undefined ? [] : parseAgentsJson(agentsJson);
  return [...mergeAgentDefinitions(user, project, fromFiles, fromFlag).values()];
}

/**
 * The mode a child's tool calls are decided under: its definition's, else the parent's. A parent
 * in plan mode keeps every child read-only, and a parent that bypasses permissions passes that on
 * (as Claude Code does): a definition can narrow what a child may do, never widen a plan.
 */
export function childPermissionMode(parent: PermissionMode, definition: AgentDefinition): PermissionMode {
  if (parent === 'plan' || parent === 'bypassPermissions') return parent;
  return definition.permissionMode ?? parent;
}

export interface ChildTranscripts {
  /** The sink for one child (its file is created on the first append). */
  sinkFor(agentId: string): TranscriptSink;
  /** Closes every child transcript opened so far. */
  close(): Promise<void>;
}

/**
 * One session per child in `store` (session id = the agent id). Opening is asynchronous but
 * `transcriptFor` is not: the sink opens its session on the first append and chains every append
 * after it, in call order.
 */
export function createChildTranscripts(store: SessionStore, cwd: string, version: string): ChildTranscripts {
  const opened: Promise<OpenedSession>[] = [];
  return {
    sinkFor(agentId: string): TranscriptSink {
      let session: Promise<OpenedSession> | undefined;
      return {
        append(records: readonly TranscriptRecord[]): Promise<void> {
          if (!session) {
            session = startSession(store, { sessionId: agentId, cwd, version });
            opened.push(session);
          }
          return session.then((s) => s.sink.append(records));
        },
      };
    },
    async close(): Promise<void> {
      await Promise.allSettled(opened.map((s) => s.then((opened) => opened.close())));
    },
  };
}
