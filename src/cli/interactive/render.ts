/**
 * The terminal view of a run: LoopEvent -> text to write. Text streams as it arrives, each tool
 * gets a start line and a finish line with its elapsed time, an Edit shows a compact diff, and
 * each turn ends with a summary line (turns, tokens, cost, time). Colors only when `color` is
 * true (stdout is a TTY); otherwise plain lines with no escape codes, fit for logs and pipes.
 */
import { styleText } from 'node:util';
import type { LoopEvent, TerminalEvent } from '../../loop/types.js';
import type { ToolResultBlock } from '../../protocol/content.js';
import { describeTerminal, exitCodeOf } from '../output/resultLine.js';

type Style = 'red' | 'green' | 'yellow' | 'cyan' | 'dim' | 'bold';

export interface RenderOptions {
  readonly color: boolean;
}

export interface TerminalRenderer {
  /** Text to write for this event ('' when nothing). */
  render(event: LoopEvent): string;
  /** Whether what was written so far ends a line (live lines may only be drawn then). */
  atLineStart(): boolean;
}

/** A short, one-line view of a tool's input: the field a person recognizes the call by. */
export function summarizeToolInput(name: string, input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const rec = input as Record<string, unknown>;
  const pick = (key: string) => (typeof rec[key] === 'string' ? (rec[key] as string) : undefined);
  const main = pick('command') ?? pick('file_path') ?? pick('pattern') ?? pick('path') ?? '';
  const oneLine = main.replace(/\s+/g, ' ');
  void name;
  return oneLine.length > 80 ? `${oneLine.slice(0, 77)}...` : oneLine;
}

function resultText(result: ToolResultBlock): string {
  const c = result.content;
  if (typeof c === 'string') return c;
  return (c ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('');
}

/** The line that says why: a trailing `[exit code 1]`-style note (Bash) if any, else the first line. */
function errorGist(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const last = lines[lines.length - 1] ?? '';
  return /^\[.*\]$/.test(last.trim()) ? last.trim().slice(1, -1) : (lines[0] ?? '');
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}

const MAX_DIFF_LINES = 12;

/** `- old` / `+ new` lines for an Edit call, at most a dozen of each. */
export function editDiffLines(input: unknown): Array<{ sign: '-' | '+'; text: string }> {
  if (typeof input !== 'object' || input === null) return [];
  const { old_string: oldText, new_string: newText } = input as Record<string, unknown>;
  if (typeof oldText !== 'string' || typeof newText !== 'string') return [];
  const side = (text: string, sign: '-' | '+') => {
    const lines = text.split('\n');
    const shown = lines.slice(0, MAX_DIFF_LINES).map((t) => ({ sign, text: t }));
    if (lines.length > MAX_DIFF_LINES) shown.push({ sign, text: `... (${lines.length - MAX_DIFF_LINES} more lines)` });
    return shown;
  };
  return [...side(oldText, '-'), ...side(newText, '+')];
}

export function summaryLine(terminal: TerminalEvent): string {
  const u = terminal.usage;
  const tokensIn = u.inputTokens + u.cacheCreationInputTokens + u.cacheReadInputTokens;
  const parts = [
    `${terminal.turnCount} turn${terminal.turnCount === 1 ? '' : 's'}`,
    `${tokensIn.toLocaleString('en-US')} in / ${u.outputTokens.toLocaleString('en-US')} out tokens`,
    `$${terminal.costUsd.toFixed(4)}`,
    formatDuration(terminal.durationMs),
    terminal.reason,
  ];
  return parts.join(' · ');
}

export function createTerminalRenderer(options: RenderOptions): TerminalRenderer {
  const paint = (style: Style, text: string) => (options.color ? styleText(style, text) : text);
  /** Whether the cursor is at the start of a line (streamed text may have left it mid-line). */
  let atLineStart = true;
  const inputs = new Map<string, unknown>();

  const line = (text: string): string => {
    const prefix = atLineStart ? '' : '\n';
    atLineStart = true;
    return `${prefix}${text}\n`;
  };

  const render = (event: LoopEvent): string => {
    switch (event.type) {
      case 'model': {
        const e = event.event;
        if (e.type === 'text_delta') {
          if (e.text === '') return '';
          atLineStart = e.text.endsWith('\n');
          return e.text;
        }
        if (e.type === 'block' && e.block.type === 'text' && !atLineStart) {
          atLineStart = true;
          return '\n';
        }
        return '';
      }
      case 'stream_retry':
        return line(paint('yellow', `(connection problem: the partial answer above is discarded; retry ${event.retry.attempt}/${event.retry.maxRetries})`));
      case 'api_retry': {
        const r = event.retry;
        const status = r.status !== undefined ? `${r.status} ` : '';
        return line(paint('yellow', `(API ${status}${r.errorType}; retry ${r.attempt}/${r.maxRetries} in ${formatDuration(r.delayMs)})`));
      }
      case 'tool_start': {
        inputs.set(event.toolUseId, event.input);
        const what = summarizeToolInput(event.name, event.input);
        return line(`${paint('cyan', '>')} ${paint('bold', event.name)}${what ? ` ${what}` : ''}`);
      }
      case 'tool_progress':
        return '';
      case 'tool_result': {
        const input = inputs.get(event.toolUseId);
        inputs.delete(event.toolUseId);
        const took = formatDuration(event.durationMs);
        if (event.result.is_error === true) {
          return line(`  ${paint('red', 'x')} ${event.name} failed after ${took}: ${errorGist(resultText(event.result)).slice(0, 160)}`);
        }
        let out = line(`  ${paint('green', 'ok')} ${event.name} ${paint('dim', took)}`);
        if (event.name === 'Edit') {
          for (const d of editDiffLines(input)) out += line(`    ${paint(d.sign === '-' ? 'red' : 'green', `${d.sign} ${d.text}`)}`);
        }
        return out;
      }
      case 'warning':
        return line(paint('yellow', `warning: ${event.message}`));
      case 'compact_boundary':
        return line(paint('dim', `(context compacted, ${event.trigger}: ${event.preTokens} -> ${event.postTokens} tokens)`));
      case 'tombstone':
        return line(paint('yellow', '(the previous attempt was withdrawn; retrying with the fallback model)'));
      case 'terminal': {
        let out = '';
        if (exitCodeOf(event.reason) !== 0) out += line(paint('red', describeTerminal(event)));
        out += line(paint('dim', `-- ${summaryLine(event)}`));
        return out;
      }
      case 'iteration_start':
      case 'assistant_message':
      case 'user_message':
      case 'transition':
      case 'command_lifecycle':
        return '';
    }
  };

  return { render, atLineStart: () => atLineStart };
}
