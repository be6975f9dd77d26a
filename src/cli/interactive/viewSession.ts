/**
 * The state the interactive view keeps across turns and commands: the prepared run (session,
 * client, policy), the options it was built from, this run's totals and the context use. A
 * session switch (/clear, /resume, /model, a permission edit) rebuilds the run from changed
 * options; the old one is closed first (its session lock released) and, if the new one cannot
 * be built, the old session is reopened so the view is never left without one.
 */
import type { CliOptions } from '../args.js';
import type { PreparedRun } from '../buildRun.js';
import { NO_TOTALS, type RunTotals } from './statusLine.js';

export interface ViewSession {
  run: PreparedRun;
  options: CliOptions;
  totals: RunTotals;
  /** Tokens in the context after the last response (0 for a fresh conversation). */
  contextTokens: number;
  readonly startedAt: number;
  /**
   * Builds a new run from `change` applied to the current options. `clear`: the switch is a
   * `/clear` (SessionEnd reason and SessionStart source `clear`, as Claude Code reports them).
   */
  rebuild(change: Partial<CliOptions>, how?: { readonly clear?: boolean }): Promise<void>;
}

export type BuildRun = (options: CliOptions, how?: { readonly sessionStartSource?: 'clear' }) => Promise<PreparedRun>;

/** Options that open the current session again (after a rebuild for another model or new rules). */
export const sameSession = (run: PreparedRun): Partial<CliOptions> => ({ resume: run.sessionId, continue: false, forkSession: false, sessionId: undefined });

export function createViewSession(run: PreparedRun, options: CliOptions, build: BuildRun): ViewSession {
  const session: ViewSession = {
    run,
    // The first prompt belongs to the first turn only.
    options: { ...options, prompt: undefined },
    totals: NO_TOTALS,
    contextTokens: 0,
    startedAt: Date.now(),
    async rebuild(change, how) {
      const next: CliOptions = { ...session.options, ...change };
      const previous = session.run;
      await (how?.clear ? previous.close('clear') : previous.close());
      try {
        session.run = await build(next, how?.clear ? { sessionStartSource: 'clear' } : undefined);
        session.options = next;
      } catch (error) {
        session.run = await build({ ...session.options, ...sameSession(previous) });
        throw error;
      }
    },
  };
  return session;
}
