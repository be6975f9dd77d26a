/**
 * Claude Code's built-in slash commands that a host may send as a prompt (a stream-json user
 * message, or `-p "/compact"`) and that act on the session instead of going to the model:
 * - `/compact [instructions]`: the conversation so far is summarized now;
 * - `/clear` (and Claude Code's aliases `/reset`, `/new`): a new, empty conversation with a new
 *   session id; the old session stays in its transcript, resumable;
 * - `/cost` (`/usage`) and `/context`: a report on the session (`reportTurn.ts`);
 * - the built-ins that need the interactive view (`INTERACTIVE_ONLY`): a note that they do.
 * Any other `/word` that is no custom command goes to the model as written, as Claude Code sends
 * an undefined command (anthropics/claude-code#67007 shows it for 2.1.170).
 * A message is one of them only when its whole text is the command (one text block or a string),
 * so a prompt that merely mentions `/clear` is sent to the model as written.
 */
import type { TerminalEvent, TerminalReason, UsageTotals } from '../../loop/types.js';
import type { MessageParam } from '../../protocol/content.js';

export type LocalCommand =
  | { readonly name: 'compact'; readonly instructions: string }
  | { readonly name: 'clear' }
  | { readonly name: 'cost' }
  | { readonly name: 'context' }
  | { readonly name: 'interactive_only'; readonly command: string };

/** The built-ins as the init line's `slash_commands` and the initialize answer's `commands` list them. */
export const LOCAL_COMMANDS: ReadonlyArray<{ readonly name: string; readonly description: string; readonly argumentHint: string }> = [
  { name: 'clear', description: 'Start a new, empty conversation (new session id; the old one stays resumable)', argumentHint: '' },
  { name: 'compact', description: 'Summarize the conversation so far and go on from the summary', argumentHint: '[instructions for the summary]' },
  { name: 'context', description: 'How much of the context window the conversation takes', argumentHint: '' },
  { name: 'cost', description: 'Tokens, cost and time of this session', argumentHint: '' },
  { name: 'usage', description: 'The same report as /cost', argumentHint: '' },
];

/**
 * Built-ins of Claude Code's (and of rxagent's interactive view) that need a terminal: a picker,
 * a dialog, a sign-in. Sent as a prompt they are answered with a note, never sent to the model.
 */
export const INTERACTIVE_ONLY: ReadonlySet<string> = new Set([
  'agents', 'config', 'doctor', 'exit', 'help', 'hooks', 'ide', 'login', 'logout', 'mcp', 'memory', 'model', 'permissions', 'quit', 'resume', 'settings', 'status', 'terminal-setup', 'theme', 'vim',
]);

const COMPACT = /^\/compact(?:\s+([\s\S]*))?$/;
const CLEAR = /^\/(?:clear|reset|new)$/;
/** A command word and whatever follows it. */
const COMMAND = /^\/([a-z][a-z0-9-]*)(?:\s[\s\S]*)?$/;

function wholeText(message: MessageParam): string | undefined {
  if (typeof message.content === 'string') return message.content;
  const [only] = message.content;
  return message.content.length === 1 && only?.type === 'text' ? only.text : undefined;
}

export function localCommandOf(message: MessageParam | string): LocalCommand | undefined {
  const text = (typeof message === 'string' ? message : wholeText(message))?.trim();
  if (text === undefined) return undefined;
  if (CLEAR.test(text)) return { name: 'clear' };
  const compact = COMPACT.exec(text);
  if (compact) return { name: 'compact', instructions: (compact[1] ?? '').trim() };
  const word = COMMAND.exec(text)?.[1];
  if (word === 'cost' || word === 'usage') return text === `/${word}` ? { name: 'cost' } : undefined;
  if (word === 'context') return text === '/context' ? { name: 'context' } : undefined;
  return word !== undefined && INTERACTIVE_ONLY.has(word) ? { name: 'interactive_only', command: word } : undefined;
}

const NO_USAGE = { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };

/**
 * The terminal a local command's `result` line is built from: no model turn (`turnCount` 0), the
 * command's outcome as the answer (or as the error, `failed`), and the history as it now stands.
 */
export function localTerminal(
  run: { readonly sessionId: string; readonly history: readonly MessageParam[] },
  startedAt: number,
  outcome: { readonly reason: TerminalReason; readonly text: string; readonly failed?: boolean; readonly usage?: UsageTotals; readonly costUsd?: number },
): TerminalEvent {
  return {
    type: 'terminal',
    reason: outcome.reason,
    turnCount: 0,
    usage: outcome.usage ?? NO_USAGE,
    costUsd: outcome.costUsd ?? 0,
    durationMs: Date.now() - startedAt,
    ...(outcome.failed ? { error: { kind: 'configuration' as const, message: outcome.text } } : { lastAssistantText: outcome.text }),
    messages: run.history,
    chainId: run.sessionId,
    depth: 0,
  };
}
