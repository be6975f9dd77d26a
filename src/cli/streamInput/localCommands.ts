/**
 * Claude Code's built-in slash commands that a host may send as a prompt (a stream-json user
 * message, or `-p "/compact"`) and that act on the session instead of going to the model:
 * - `/compact [instructions]`: the conversation so far is summarized now;
 * - `/clear` (and Claude Code's aliases `/reset`, `/new`): a new, empty conversation with a new
 *   session id; the old session stays in its transcript, resumable.
 * A message is one of them only when its whole text is the command (one text block or a string),
 * so a prompt that merely mentions `/clear` is sent to the model as written.
 */
import type { TerminalEvent, TerminalReason, UsageTotals } from '../../loop/types.js';
import type { MessageParam } from '../../protocol/content.js';

export type LocalCommand = { readonly name: 'compact'; readonly instructions: string } | { readonly name: 'clear' };

/** The built-ins as the init line's `slash_commands` and the initialize answer's `commands` list them. */
export const LOCAL_COMMANDS: ReadonlyArray<{ readonly name: string; readonly description: string; readonly argumentHint: string }> = [
  { name: 'clear', description: 'Start a new, empty conversation (new session id; the old one stays resumable)', argumentHint: '' },
  { name: 'compact', description: 'Summarize the conversation so far and go on from the summary', argumentHint: '[instructions for the summary]' },
];

const COMPACT = /^\/compact(?:\s+([\s\S]*))?$/;
const CLEAR = /^\/(?:clear|reset|new)$/;

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
  return compact ? { name: 'compact', instructions: (compact[1] ?? '').trim() } : undefined;
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
