/**
 * The terminal front end: raw keys decoded by Node's readline (`emitKeypressEvents`, which also
 * understands bracketed paste, turned on here), the line editor, and the panel under the output:
 * the unfinished Markdown block, the live tool lines (ticking), the prompt or an open question,
 * and the status line. Typing works while a turn runs (Enter adds the text to the turn).
 */
import { writeSync as fsWriteSync } from 'node:fs';
import { emitKeypressEvents } from 'node:readline';
import { styleText } from 'node:util';
import { escapeForTerminal } from '../../util/escapeForTerminal.js';
import { setWidthModel, type WidthModel } from '../../util/terminalWidth.js';
import { choiceLines, reduceChoice, type ChoiceState } from './choice.js';
import type { Choice, FrontEnd, FrontEndHandlers } from './frontEnd.js';
import { appendHistory, loadHistory } from './inputHistory.js';
import { decodeKey, type KeyDecodeState, type RawKey } from './keys.js';
import { layoutEditor } from './layout.js';
import { emptyEditor, reduceEditor, type Completer, type EditorState } from './lineEditor.js';
import type { LiveTools } from './liveTools.js';
import { createScreen } from './screen.js';

export const PROMPT_MARKER = '❯ ';

/** Bracketed paste, modifyOtherKeys mode 1, kitty keyboard protocol level 1 (pushed, so popped on close). */
const TERMINAL_MODES_ON = '\x1b[?2004h\x1b[>4;1m\x1b[>1u';
const TERMINAL_MODES_OFF = '\x1b[?2004l\x1b[>4m\x1b[<u';
/**
 * Draws `❤️` (U+2764 U+FE0F) at the start of the line and asks where the cursor went, then
 * erases it: a terminal that puts the cursor in column 3 draws graphemes whole, one that puts it
 * in column 2 measures code point by code point (terminalWidth.ts). The answer arrives as a key.
 */
const WIDTH_PROBE = '\r\u2764\ufe0f\x1b[6n\r\x1b[2K';
const widthModelFromProbe = (column: number): WidthModel => (column === 2 ? 'codepoint' : 'grapheme');

function writeBeforeExit(output: NodeJS.WriteStream, text: string): void {
  const fd = (output as { fd?: unknown }).fd;
  try {
    if (typeof fd === 'number') fsWriteSync(fd, text);
  } catch {
    // The terminal is gone: nothing to restore.
  }
}

export interface TtyFrontEndOptions {
  readonly input: NodeJS.ReadStream;
  readonly output: NodeJS.WriteStream;
  readonly handlers: FrontEndHandlers;
  readonly live: LiveTools;
  readonly status: () => string;
  /** Streamed text not printed yet (shown raw above the live lines). */
  readonly pending: () => string;
  readonly complete: Completer;
  readonly historyFile: string;
  readonly onWarning: (message: string) => void;
}

/** An open question over the prompt (the first of `modes` has the keys; none: the prompt). */
type Mode =
  | { readonly type: 'choice'; state: ChoiceState<unknown>; readonly resolve: (value: unknown) => void }
  | { readonly type: 'line'; readonly label: string; editor: EditorState; readonly resolve: (value: string | undefined) => void };

export function createTtyFrontEnd(options: TtyFrontEndOptions): FrontEnd {
  const { input, output, handlers, live } = options;
  const paint = (style: 'cyan' | 'dim' | 'bold', text: string) => styleText(style, text);
  let editor = emptyEditor(loadHistory(options.historyFile));
  const modes: Mode[] = [];
  let activity = '';
  let closed = false;

  const panel = () => {
    const columns = output.columns ?? 80;
    // The unfinished block is the model's raw text (a finished one is rendered by marked-terminal,
    // which strips control characters): escaped, so no sequence in it acts on the terminal.
    const pending = escapeForTerminal(options.pending()).text;
    const lines: string[] = pending === '' ? [] : pending.replace(/\n+$/, '').split('\n');
    lines.push(...live.lines(Date.now()).map((l) => paint('dim', l)));
    const rule = paint('dim', '─'.repeat(Math.max(1, columns - 1)));
    lines.push(rule);
    const mode = modes[0];
    let cursor: { line: number; column: number } | undefined;
    if (mode?.type === 'choice') {
      lines.push(...choiceLines(mode.state, paint));
    } else {
      const label = mode?.type === 'line' ? mode.label : '';
      const state = mode?.type === 'line' ? mode.editor : editor;
      if (label !== '') lines.push(paint('bold', label));
      const layout = layoutEditor(PROMPT_MARKER, state.text, state.cursor, columns);
      cursor = { line: lines.length + layout.cursorRow, column: layout.cursorColumn };
      lines.push(...layout.rows.map((row, i) => (i === 0 ? `${paint('cyan', PROMPT_MARKER)}${row.slice(PROMPT_MARKER.length)}` : row)));
    }
    lines.push(rule);
    lines.push(paint('dim', `  ${options.status()}${activity ? ` · ${activity}` : ''}`));
    return cursor ? { lines, cursor } : { lines };
  };
  const screen = createScreen(output, panel);
  const redraw = () => {
    if (!closed) screen.redraw();
  };

  const echo = (text: string) => {
    const [first = '', ...rest] = text.split('\n');
    screen.print(`${paint('cyan', PROMPT_MARKER)}${first}${rest.map((l) => `\n  ${l}`).join('')}\n`);
  };

  let keyState: KeyDecodeState;
  /** Until the terminal answers the width probe (it may never: then string-width's model stays). */
  let probing = true;
  const onKey = (str: string | undefined, raw: RawKey | undefined) => {
    const decoded = decodeKey(keyState, str, raw);
    keyState = decoded.state;
    if (decoded.cursorReport && probing) {
      probing = false;
      setWidthModel(widthModelFromProbe(decoded.cursorReport.column));
      return redraw();
    }
    const key = decoded.key;
    if (!key) return;
    const mode = modes[0];
    if (mode?.type === 'choice') {
      const step = reduceChoice(mode.state, key);
      if (step.type === 'open') mode.state = step.state;
      else {
        modes.shift();
        mode.resolve(step.type === 'picked' ? step.value : undefined);
      }
      return redraw();
    }
    if (mode?.type === 'line') {
      // One line of answer: Enter gives it (empty is fine), Esc or Ctrl-C withdraws it.
      const step = key.type === 'submit' ? undefined : reduceEditor(mode.editor, key);
      if (step) mode.editor = step.state;
      if (!step || step.effect?.type === 'escape' || step.effect?.type === 'interrupt') {
        modes.shift();
        mode.resolve(step ? undefined : mode.editor.text);
      }
      return redraw();
    }
    const step = reduceEditor(editor, key, options.complete);
    editor = step.state;
    redraw();
    switch (step.effect?.type) {
      case 'submit': {
        const problem = appendHistory(options.historyFile, step.effect.text);
        if (problem) options.onWarning(problem);
        echo(step.effect.text);
        return handlers.submit(step.effect.text);
      }
      case 'escape':
        return handlers.escape();
      case 'interrupt':
        return handlers.interrupt();
      case 'exit':
        return handlers.exit();
      case 'clear_screen':
        return screen.clearScreen();
      case undefined:
        return;
    }
  };

  const ticker = setInterval(() => {
    if (live.size > 0) redraw();
  }, 200);
  ticker.unref();
  const onResize = () => screen.resized();
  emitKeypressEvents(input);
  input.setRawMode(true);
  input.on('keypress', onKey);
  output.on('resize', onResize);
  input.resume();
  // Bracketed paste: the terminal marks pasted text, so its newlines do not submit it line by line.
  // modifyOtherKeys mode 1 and the kitty protocol's first level: Shift+Enter reported apart from
  // Enter where the terminal can (keys.ts). Then the width probe, before anything else is drawn.
  output.write(`${TERMINAL_MODES_ON}${WIDTH_PROBE}`);
  // Should the process end without close() (an uncaught error), the terminal still gets its modes back.
  const restoreModes = () => {
    if (!closed) writeBeforeExit(output, TERMINAL_MODES_OFF);
  };
  process.on('exit', restoreModes);

  const ask = <T>(mode: Mode, signal: AbortSignal | undefined, promise: Promise<T | undefined>): Promise<T | undefined> => {
    if (signal?.aborted) return Promise.resolve(undefined);
    const onAbort = () => {
      const i = modes.indexOf(mode);
      if (i !== -1) {
        modes.splice(i, 1);
        mode.resolve(undefined as never);
        redraw();
      }
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    modes.push(mode);
    redraw();
    return promise.finally(() => signal?.removeEventListener('abort', onAbort));
  };

  return {
    interactive: true,
    color: true,
    columns: () => output.columns ?? 80,
    // Nothing to print can still change the panel: a streamed delta grows the unfinished block.
    print: (text) => (text === '' ? redraw() : screen.print(text)),
    idle() {
      activity = '';
      redraw();
    },
    busy(what) {
      activity = what;
      redraw();
    },
    choose<T>(title: string, choices: ReadonlyArray<Choice<T>>, signal?: AbortSignal) {
      let resolve!: (value: unknown) => void;
      const promise = new Promise<T | undefined>((r) => (resolve = r as (value: unknown) => void));
      const mode: Mode = { type: 'choice', state: { title, options: choices, selected: 0 }, resolve };
      return ask(mode, signal, promise);
    },
    readLine(label, signal) {
      let resolve!: (value: string | undefined) => void;
      const promise = new Promise<string | undefined>((r) => (resolve = r));
      return ask({ type: 'line', label, editor: emptyEditor(), resolve }, signal, promise);
    },
    refresh: redraw,
    close() {
      if (closed) return;
      closed = true;
      clearInterval(ticker);
      input.off('keypress', onKey);
      output.off('resize', onResize);
      for (const mode of modes.splice(0)) mode.resolve(undefined as never);
      screen.close();
      process.off('exit', restoreModes);
      output.write(TERMINAL_MODES_OFF);
      input.setRawMode(false);
      input.pause();
    },
  };
}
