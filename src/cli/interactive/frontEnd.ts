/**
 * What the interactive session needs from the screen it runs on. Two implementations: the
 * terminal one (raw keys, line editor, live panel, status line) and the piped one (lines in,
 * plain text out, never an escape code).
 */
export interface Choice<T> {
  readonly label: string;
  readonly value: T;
}

/** What the person did at the prompt. */
export interface FrontEndHandlers {
  /** A prompt (or /command) was entered. */
  submit(text: string): void;
  /** Esc. */
  escape(): void;
  /** Ctrl-C with an empty prompt (or SIGINT when piped). */
  interrupt(): void;
  /** Ctrl-D, or the end of piped input. */
  exit(): void;
}

export interface FrontEnd {
  /** Whether a person at a terminal can answer questions. */
  readonly interactive: boolean;
  /** Whether stdout is a terminal (colors, Markdown, live lines). */
  readonly color: boolean;
  readonly columns: () => number;
  print(text: string): void;
  /** Shows the prompt and waits for input (idle). */
  idle(): void;
  /** A turn or a command runs; typed lines still arrive through `submit`. */
  busy(activity: string): void;
  /** Picks one of `options` (undefined: cancelled, aborted, or nobody can answer). */
  choose<T>(title: string, options: ReadonlyArray<Choice<T>>, signal?: AbortSignal): Promise<T | undefined>;
  /** One line of text typed in answer to `label` (undefined: cancelled or aborted). */
  readLine(label: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Redraws the live parts (status line, live lines). */
  refresh(): void;
  close(): void;
}
