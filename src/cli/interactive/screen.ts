/**
 * The terminal screen of the interactive view: what was printed scrolls up as usual, and under it
 * a "panel" is redrawn in place — the line still being streamed, the live tool lines, the prompt
 * (or a question) and the status line. Every print erases the panel first and draws it again
 * after, so live lines never stay behind as stale copies, whatever ended their call.
 *
 * Erasing needs to know how many rows the panel takes now: its lines are cut to the width minus
 * one column when drawn, and after a resize the terminal may have re-wrapped them (tmux does), so
 * the rows are counted again at the new width from the widths that were drawn. That count can
 * still be wrong for a draw that fell between the terminal's re-wrap and the moment the new size
 * could be read (tmux re-wraps first and tells the program later), so a resize also repaints the
 * whole screen: the last screenful of output written again from the top, the panel under it.
 * The screen is erased row by row, not with `ESC[2J`: terminals that keep a cleared screen
 * (tmux's `scroll-on-clear`, VTE) would push a copy of it into the scrollback at every resize.
 */
import { layoutRowsAbove, rowsOf, stripAnsi, truncateLine, visibleWidth, wrapPlain } from './layout.js';

export interface Panel {
  readonly lines: readonly string[];
  /** Where the cursor goes (the prompt's caret); default: the end of the last line. */
  readonly cursor?: { readonly line: number; readonly column: number };
}

export interface ScreenOutput {
  write(text: string): unknown;
  readonly columns?: number;
  readonly rows?: number;
  /** The size now (a TTY's ioctl): `columns` only changes once Node has handled the SIGWINCH. */
  getWindowSize?(): [number, number];
}

export interface Screen {
  /** Writes text above the panel; a last line without its newline waits in the panel until it ends. */
  print(text: string): void;
  /** Draws the panel again (a key, a tick of the live clocks, a resize). */
  redraw(): void;
  /** Ctrl-L: clears the whole screen, then draws the panel at the top. */
  clearScreen(): void;
  /** The terminal changed size: the whole screen is drawn again at the new width. */
  resized(): void;
  /** Flushes the waiting line, erases the panel and stops drawing it. */
  close(): void;
}

const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

/**
 * `panel` is asked for the panel at every draw, so what is drawn is never an older copy (a live
 * line of a call that just finished, a status from before the turn ended).
 */
export function createScreen(output: ScreenOutput, panelOf: () => Panel): Screen {
  let partial = '';
  /** Visible widths of the rows drawn last, and the cursor's place among them. */
  let drawn: number[] = [];
  let cursorLine = 0;
  let cursorColumn = 0;
  let closed = false;
  /** The last lines printed (a screenful at most), to draw the screen again after a resize. */
  let recent: string[] = [];
  const remember = (text: string) => {
    recent.push(...text.split('\n').slice(0, -1));
    if (recent.length > 2 * rows()) recent = recent.slice(-rows());
  };
  // Asked at every draw: a tick between the terminal's re-wrap and Node's resize event must
  // already count the rows at the new width, or the erase misses rows and leaves stale copies.
  const size = (): [number, number] => {
    try {
      if (output.getWindowSize) return output.getWindowSize();
    } catch {
      // Not a terminal any more (closed): fall back to the last known size.
    }
    return [output.columns ?? 80, output.rows ?? 24];
  };
  const columns = () => Math.max(10, size()[0]);
  const rows = () => Math.max(5, size()[1]);

  const eraseSequence = (): string => {
    if (drawn.length === 0) return '';
    const up = layoutRowsAbove(drawn, cursorLine, cursorColumn, columns());
    drawn = [];
    return `${up > 0 ? `\x1b[${up}A` : ''}\r\x1b[J`;
  };

  const drawSequence = (): string => {
    if (closed) return '';
    const width = columns() - 1;
    const panel = panelOf();
    const waiting = partial === '' ? [] : wrapPlain(stripAnsi(partial), width);
    let lines = [...waiting, ...panel.lines.map((l) => truncateLine(l, width))];
    let cursor = panel.cursor ? { line: panel.cursor.line + waiting.length, column: panel.cursor.column } : undefined;
    // Never taller than the screen: rows scrolled out of sight could not be erased again.
    const overflow = lines.length - (rows() - 1);
    if (overflow > 0) {
      lines = lines.slice(overflow);
      if (cursor) cursor = { line: Math.max(0, cursor.line - overflow), column: cursor.column };
    }
    if (lines.length === 0) return '';
    drawn = lines.map(visibleWidth);
    const last = lines.length - 1;
    const target = cursor ?? { line: last, column: drawn[last]! };
    cursorLine = target.line;
    cursorColumn = Math.min(target.column, width);
    const up = last - cursorLine;
    return `${lines.join('\n')}${up > 0 ? `\x1b[${up}A` : ''}\r${cursorColumn > 0 ? `\x1b[${cursorColumn}C` : ''}`;
  };

  const repaint = (before = '') => {
    output.write(`${HIDE_CURSOR}${eraseSequence()}${before}${drawSequence()}${SHOW_CURSOR}`);
  };

  return {
    print(text) {
      if (text === '') return;
      const all = partial + text;
      const end = all.lastIndexOf('\n');
      partial = all.slice(end + 1);
      const complete = end === -1 ? '' : all.slice(0, end + 1);
      remember(complete);
      repaint(complete);
    },
    redraw: () => repaint(),
    clearScreen() {
      drawn = [];
      recent = [];
      output.write('\x1b[2J\x1b[3J\x1b[H');
      repaint();
    },
    resized() {
      if (closed) return;
      drawn = [];
      const [width, height] = [columns(), rows()];
      // Keep the newest output that fits above the panel at the new width.
      let room = height - 1 - panelOf().lines.length;
      const shown: string[] = [];
      for (let i = recent.length - 1; i >= 0 && room > 0; i--) {
        room -= rowsOf(visibleWidth(recent[i]!), width);
        if (room >= 0) shown.unshift(recent[i]!);
      }
      // Erased row by row (`ESC[2K`, then down one): an erase of the whole display, even `ESC[J`
      // from the top-left corner, is what tmux copies into the scrollback.
      const blank = `\x1b[H${'\x1b[2K\x1b[1B'.repeat(height)}\x1b[H`;
      output.write(`${HIDE_CURSOR}${blank}${shown.map((l) => `${l}\n`).join('')}${drawSequence()}${SHOW_CURSOR}`);
    },
    close() {
      if (closed) return;
      const flushed = partial === '' ? '' : `${partial}\n`;
      partial = '';
      closed = true;
      output.write(`${eraseSequence()}${flushed}${SHOW_CURSOR}`);
    },
  };
}
