/**
 * Drives the BUILT `rxagent` in a real terminal: a tmux server of its own (`-L`, its own socket),
 * one window of a fixed size, keys sent with `send-keys`, pastes with `paste-buffer -p` (bracketed
 * when the program asked for it, as a terminal does), and the screen read with `capture-pane`.
 * Waiting is for what the screen shows (polled, with a generous bound), never for a fixed time.
 *
 * The exit status is NOT taken from tmux. Debian's tmux 3.3a is built with libutempter, which
 * swaps in its own SIGCHLD handler while its helper runs; tmux runs that helper when the pane's
 * terminal closes, which is exactly when rxagent exits, so the pane process's SIGCHLD is often lost:
 * it stays a zombie, `pane_dead` is 1 and `pane_dead_status` stays empty for ever (tmux issues
 * #311 and #4559, fixed upstream after 3.3a by re-sending SIGCHLD). That was the random "did not
 * exit" hang of these tests. Instead the pane runs a shell that waits for rxagent itself
 * (`wait` is not signal-driven) and writes its exit status to a file, which is what we read.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from '../cli/helpers.js';

export interface TmuxOptions {
  readonly cwd: string;
  readonly home: string;
  readonly baseURL: string;
  readonly args?: readonly string[];
  readonly width?: number;
  readonly height?: number;
  /** Runs this program (argv) instead of rxagent: a control, to show what raw output would do. */
  readonly program?: readonly string[];
}

export interface Terminal {
  /** The visible screen, trailing blank lines and spaces removed. */
  screen(): string;
  /** The same with its colors and attributes as escape sequences (`capture-pane -e`). */
  styledScreen(): string;
  /** The whole pane: the scrollback and the screen (`capture-pane -S -`), trimmed as screen(). */
  history(): string;
  /** The pane's title (what an OSC 0/2 sequence written to the terminal would set). */
  title(): string;
  /** Where the terminal's cursor is (column, row; 0-based). */
  cursor(): { x: number; y: number };
  /** Keys in tmux's names (`Enter`, `Escape`, `C-c`, `Up`, `Tab`...). */
  keys(...names: string[]): void;
  /** Literal text, typed (not pasted). */
  type(text: string): void;
  /** Bytes as a terminal would send them (`send-keys -H`): sequences tmux itself does not produce. */
  raw(bytes: string): void;
  /** Types the text and presses Enter. */
  submit(text: string): void;
  /** Text pasted as a terminal pastes it (bracketed, newlines sent as CR). */
  paste(text: string): void;
  resize(width: number, height: number): void;
  /** Resolves with the screen once `check` holds for it; rejects (with the screen) after `timeoutMs`. */
  waitFor(check: string | RegExp | ((screen: string) => boolean), timeoutMs?: number): Promise<string>;
  /** Whether the program has exited, and its status. */
  exited(): { dead: boolean; status: number | undefined };
  waitForExit(timeoutMs?: number): Promise<number | undefined>;
  kill(): void;
}

let counter = 0;
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** tmux is a system package (`.ci/run` installs it); tests skip with a clear message without it. */
export function hasTmux(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startTerminal(options: TmuxOptions): Terminal {
  const socket = `rxagent-test-${process.pid}-${++counter}`;
  const script = join(options.home, `run-${counter}.sh`);
  const statusFile = join(options.home, `run-${counter}.status`);
  // No `exec`: the shell outlives rxagent to record its status (written whole, then renamed).
  writeFileSync(
    script,
    `#!/bin/sh\ncd ${quote(options.cwd)} || exit 97\n${(options.program ?? [process.execPath, CLI, ...(options.args ?? [])]).map(quote).join(' ')}\n` +
      `echo $? > ${quote(`${statusFile}.tmp`)} && mv ${quote(`${statusFile}.tmp`)} ${quote(statusFile)}\n`,
  );
  chmodSync(script, 0o755);
  // remain-on-exit from the start (a set-option after new-session could come after a quick exit,
  // when the session is already gone): the last screen stays readable after rxagent has left.
  const config = join(options.home, `tmux-${counter}.conf`);
  // extended-keys: Shift+Enter and friends reach a program that asks for them (modifyOtherKeys).
  writeFileSync(config, 'set-option -g remain-on-exit on\nset-option -g extended-keys on\n');
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: options.home,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: options.baseURL,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
  };
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, '-f', config, ...args], { env, encoding: 'utf8' });
  tmux('new-session', '-d', '-s', 'main', '-x', String(options.width ?? 120), '-y', String(options.height ?? 40), script);
  const capture = (...range: string[]) =>
    tmux('capture-pane', '-p', ...range, '-t', 'main')
      .split('\n')
      .map((l) => l.replace(/\s+$/, ''))
      .join('\n')
      .replace(/\n+$/, '');
  const screen = () => capture();
  const exited = () => {
    if (!existsSync(statusFile)) return { dead: false, status: undefined };
    return { dead: true, status: Number(readFileSync(statusFile, 'utf8').trim()) };
  };
  return {
    screen,
    styledScreen: () => tmux('capture-pane', '-p', '-e', '-t', 'main'),
    history: () => capture('-S', '-', '-E', '-'),
    title: () => tmux('display-message', '-p', '-t', 'main', '#{pane_title}').replace(/\n$/, ''),
    cursor() {
      const [x, y] = tmux('display-message', '-p', '-t', 'main', '#{cursor_x} #{cursor_y}').trim().split(' ').map(Number);
      return { x: x!, y: y! };
    },
    keys: (...names) => void tmux('send-keys', '-t', 'main', ...names),
    type: (text) => void tmux('send-keys', '-t', 'main', '-l', text),
    raw: (bytes) => void tmux('send-keys', '-t', 'main', '-H', ...Array.from(Buffer.from(bytes, 'utf8'), (b) => b.toString(16).padStart(2, '0'))),
    submit(text) {
      tmux('send-keys', '-t', 'main', '-l', text);
      tmux('send-keys', '-t', 'main', 'Enter');
    },
    paste(text) {
      tmux('set-buffer', '-b', 'paste', '--', text);
      tmux('paste-buffer', '-p', '-d', '-b', 'paste', '-t', 'main');
    },
    resize: (width, height) => void tmux('resize-window', '-t', 'main', '-x', String(width), '-y', String(height)),
    async waitFor(check, timeoutMs = 90_000) {
      const holds = (s: string) => (typeof check === 'string' ? s.includes(check) : check instanceof RegExp ? check.test(s) : check(s));
      const deadline = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < deadline) {
        last = screen();
        if (holds(last)) return last;
        await pause(50);
      }
      throw new Error(`the screen never showed ${String(check)}; it shows:\n${last}`);
    },
    exited,
    async waitForExit(timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const state = exited();
        if (state.dead) return state.status;
        await pause(50);
      }
      throw new Error(`rxagent did not exit; the screen shows:\n${screen()}`);
    },
    kill() {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
    },
  };
}
