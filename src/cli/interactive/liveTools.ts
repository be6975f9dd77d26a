/**
 * The running tools of the interactive view, for its live lines: one line per running tool with
 * the time since it started, in start order. Pure state; the caller owns the clock and the
 * drawing (only on a terminal: piped output gets the plain start/finish lines instead).
 */
export interface LiveTools {
  start(toolUseId: string, label: string, at: number): void;
  /** The call's clock starts again (it waited for the person's answer, which is not its time). */
  restart(toolUseId: string, at: number): void;
  finish(toolUseId: string): void;
  /** Every line goes (the turn ended, whatever ended it). */
  clear(): void;
  readonly size: number;
  /** One line per running tool, e.g. `… Bash npm test (3.2s)`. */
  lines(now: number): string[];
}

export function createLiveTools(): LiveTools {
  const running = new Map<string, { readonly label: string; readonly at: number }>();
  return {
    start: (id, label, at) => void running.set(id, { label, at }),
    restart: (id, at) => {
      const call = running.get(id);
      if (call) running.set(id, { ...call, at });
    },
    finish: (id) => void running.delete(id),
    clear: () => running.clear(),
    get size() {
      return running.size;
    },
    lines: (now) => [...running.values()].map(({ label, at }) => `  … ${label} (${(Math.max(0, now - at) / 1000).toFixed(1)}s)`),
  };
}
