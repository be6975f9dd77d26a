/**
 * The terminal view of a run: LoopEvent -> text to write. Text streams as it arrives (as
 * rendered Markdown, block by block, when a Markdown stream is given), each tool gets a start
 * line and exactly one finish line with its elapsed time — a call the turn ended without a
 * result (an interrupt) gets "interrupted after …" at the terminal — an Edit shows a compact
 * diff, and each turn ends with a summary line (turns, tokens, cost, time). Colors only when
 * `color` is true (stdout is a TTY); otherwise plain lines with no escape codes.
 */
import { styleText } from 'node:util';
import type { LoopEvent, TerminalEvent } from '../../loop/types.js';
import type { ToolResultBlock } from '../../protocol/content.js';
import { describeTerminal, exitCodeOf } from '../output/resultLine.js';
import { escapeForTerminal } from '../../util/escapeForTerminal.js';
import type { MarkdownStream } from './markdown.js';

type Style = 'red' | 'green' | 'yellow' | 'cyan' | 'dim' | 'bold';

export interface RenderOptions {
  readonly color: boolean;
  /** Render the model's text as Markdown (terminal only). */
  readonly markdown?: MarkdownStream;
  /** Milliseconds a call spent waiting for the person's approval: not part of its reported time. */
  readonly waitedMs?: (toolUseId: string) => number;
  /** Clock for the time of calls that end without a result (default Date.now). */
  readonly now?: () => number;
}

export interface TerminalRenderer {
  /** Text to write for this event ('' when nothing). */
  render(event: LoopEvent): string;
  /** Whether what was written so far ends a line (live lines may only be drawn then). */
  atLineStart(): boolean;
  /** Streamed text not printed yet (the unfinished Markdown block), for the live area. */
  pendingText(): string;
}

/** A short, one-line view of a tool's input: the field a person recognizes the call by. */
export function summarizeToolInput(name: string, input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const rec = input as Record<string, unknown>;
  const pick = (key: string) => (typeof rec[key] === 'string' ? (rec[key] as string) : undefined);
  const main = pick('command') ?? pick('file_path') ?? pick('pattern') ?? pick('path') ?? '';
  const oneLine = escapeForTerminal(main.replace(/\s+/g, ' ')).text;
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
  /** Calls started and not finished: each gets exactly one finish line. */
  const open = new Map<string, { readonly name: string; readonly at: number }>();
  const finished = new Set<string>();
  const now = options.now ?? Date.now;
  const waited = (id: string) => options.waitedMs?.(id) ?? 0;

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
          if (options.markdown) {
            const rendered = options.markdown.push(e.text);
            if (rendered !== '') atLineStart = true;
            return rendered;
          }
          atLineStart = e.text.endsWith('\n');
          return e.text;
        }
        if (e.type === 'block' && e.block.type === 'text') {
          const rest = options.markdown?.flush() ?? '';
          if (rest !== '') {
            atLineStart = true;
            return rest;
          }
          if (!atLineStart) {
            atLineStart = true;
            return '\n';
          }
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
        open.set(event.toolUseId, { name: event.name, at: now() });
        const what = summarizeToolInput(event.name, event.input);
        return line(`${paint('cyan', '>')} ${paint('bold', event.name)}${what ? ` ${what}` : ''}`);
      }
      case 'tool_progress':
        return '';
      case 'tool_result': {
        const input = inputs.get(event.toolUseId);
        inputs.delete(event.toolUseId);
        open.delete(event.toolUseId);
        // One finish line per call, even if a late result arrived after the interrupted line.
        if (finished.has(event.toolUseId)) return '';
        finished.add(event.toolUseId);
        const took = formatDuration(Math.max(0, event.durationMs - waited(event.toolUseId)));
        if (event.result.is_error === true) {
          return line(`  ${paint('red', 'x')} ${event.name} failed after ${took}: ${escapeForTerminal(errorGist(resultText(event.result)).slice(0, 160)).text}`);
        }
        let out = line(`  ${paint('green', 'ok')} ${event.name} ${paint('dim', took)}`);
        if (event.name === 'Edit') {
          for (const d of editDiffLines(input)) out += line(`    ${paint(d.sign === '-' ? 'red' : 'green', `${d.sign} ${escapeForTerminal(d.text).text}`)}`);
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
        let out = options.markdown ? options.markdown.flush() : '';
        if (out !== '') atLineStart = true;
        for (const [id, call] of open) {
          const took = formatDuration(Math.max(0, now() - call.at - waited(id)));
          out += line(`  ${paint('yellow', 'x')} ${call.name} interrupted after ${took}`);
          finished.add(id);
        }
        open.clear();
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

  return { render, atLineStart: () => atLineStart, pendingText: () => options.markdown?.pending() ?? '' };
}
