/**
 * The interactive view's question about a project's MCP servers (`.mcp.json`), as Claude Code
 * asks it at start: a server the repository brings runs as the person, outside the sandbox, so
 * it starts only once someone said yes. Each server neither approved nor refused yet is asked
 * about, one at a time, before any server starts:
 *   - use it               → its name joins `enabledMcpjsonServers`;
 *   - use every one of this project, now and later → `enableAllProjectMcpServers: true` (the
 *     servers still to ask about are then approved too; a refused one stays refused);
 *   - do not use it        → its name joins `disabledMcpjsonServers` (`/mcp` lists it disabled);
 *   - Esc                  → nothing is stored: not started now, asked again at the next start.
 * Answers go to `.claude/settings.local.json` (personal, never the committed settings file),
 * merged into what the file holds. Should the file not take them, they hold for this session
 * and a warning says so. Rebuilding the run (/clear, /model...) does not ask again.
 */
import type { McpServerConfig } from '../../mcp/config.js';
import type { AwaitingApproval, McpApprovals } from '../../mcp/sources.js';
import { assertNever } from '../../util/assertNever.js';
import { escapeForTerminal } from '../../util/escapeForTerminal.js';
import type { FrontEnd } from './frontEnd.js';
import { localSettingsFile, updateLocalSettings, type Json } from './localSettings.js';
import type { Paint } from './permissionQuestion.js';

export type McpApprovalAnswer = 'use' | 'use_all' | 'refuse';

export interface McpApproverOptions {
  readonly frontEnd: Pick<FrontEnd, 'print' | 'choose'>;
  readonly paint: Paint;
  readonly cwd: string;
  readonly onWarning: (message: string) => void;
  /** The view is closing (SIGTERM): the open question goes away, unanswered, and no other is asked. */
  readonly signal?: AbortSignal;
}

/** What one answer changes in the settings object (pure; other keys untouched). */
export function withMcpApproval(settings: Json, name: string, answer: McpApprovalAnswer): Json {
  if (answer === 'use_all') return { ...settings, enableAllProjectMcpServers: true };
  const key = answer === 'use' ? 'enabledMcpjsonServers' : 'disabledMcpjsonServers';
  const held = settings[key];
  const names = Array.isArray(held) ? held.filter((n): n is string => typeof n === 'string') : [];
  return names.includes(name) ? settings : { ...settings, [key]: [...names, name] };
}

/** The answers of this session in the settings keys' shape. */
function asApprovals(answers: ReadonlyMap<string, McpApprovalAnswer>): McpApprovals {
  const named = (answer: McpApprovalAnswer) => [...answers].filter(([, a]) => a === answer).map(([n]) => n);
  return { enableAllProjectMcpServers: named('use_all').length > 0, enabledMcpjsonServers: named('use'), disabledMcpjsonServers: named('refuse') };
}

const shown = (text: string) => escapeForTerminal(text, { newlines: 'escape' }).text;

function whatItRuns(config: McpServerConfig): string {
  switch (config.type) {
    case undefined:
    case 'stdio':
      return `runs: ${shown([config.command, ...(config.args ?? [])].join(' '))}`;
    case 'http':
    case 'sse':
      return `connects to: ${shown(config.url)} (${config.type})`;
    case 'transport':
      return 'an in-process transport';
    default:
      return assertNever(config, 'MCP server config');
  }
}

/** Asks about each server in `awaiting`; resolves with every answer this session has given. */
export function createMcpApprover(options: McpApproverOptions): (awaiting: readonly AwaitingApproval[]) => Promise<McpApprovals> {
  const { frontEnd, paint, cwd } = options;
  const answers = new Map<string, McpApprovalAnswer>();
  /** Asked and left undecided (Esc): not asked again before the next start. */
  const later = new Set<string>();
  const save = (name: string, answer: McpApprovalAnswer) => {
    const file = localSettingsFile(cwd);
    try {
      updateLocalSettings(cwd, (settings) => withMcpApproval(settings, name, answer));
      frontEnd.print(`${paint('dim', `(saved to ${file})`)}\n`);
    } catch (error) {
      options.onWarning(`could not save the answer about MCP server "${shown(name)}" to ${file} (${(error as Error).message}); it holds for this session only`);
    }
  };
  return async (awaiting) => {
    for (const { name, config } of awaiting) {
      if (options.signal?.aborted) break;
      if (answers.has(name) || later.has(name) || [...answers.values()].includes('use_all')) continue;
      frontEnd.print(
        [
          `${paint('yellow', '?')} This project configures an MCP server you have not approved yet: ${paint('bold', shown(name))}`,
          `    ${whatItRuns(config)}`,
          paint('dim', '  An approved server runs with your permissions, outside the sandbox, and its tools are offered to the model.'),
          '',
        ].join('\n'),
      );
      const answer = await frontEnd.choose<McpApprovalAnswer>(`Start the MCP server "${shown(name)}"?`, [
        { label: `Yes, use "${shown(name)}"`, value: 'use' },
        { label: 'Yes, and use every MCP server this project configures, now and later', value: 'use_all' },
        { label: `No, do not use "${shown(name)}"`, value: 'refuse' },
      ], options.signal);
      if (answer === undefined) {
        later.add(name);
        frontEnd.print(`${paint('dim', `("${shown(name)}" is not started; you will be asked again next time)`)}\n`);
        continue;
      }
      answers.set(name, answer);
      save(name, answer);
    }
    return asApprovals(answers);
  };
}
