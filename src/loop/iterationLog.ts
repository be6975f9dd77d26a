/**
 * What the phases of one iteration tell each other. Written only by the phase that owns each
 * field (the preflight, the model phase's fold, its error handling), read by the decision.
 */
import type { MessageParam } from '../protocol/content.js';
import type { Attempt } from './foldAttempt.js';
import type { TranscriptRecord } from './seams.js';
import type { SentHistory } from './sentHistory.js';
import type { LoopEvent } from './types.js';

export interface IterationLog {
  /** The fold's latest attempt (its `state` is the iteration's state so far). */
  latest: Attempt;
  /** The history the governor chose to send (set by the preflight). */
  sent: readonly MessageParam[];
  /** That history as a request sends it (set by the model phase; handed on with the `Continue`). */
  prepared: SentHistory;
  /** The history a failed transcript write ends the run with (valid at every write). */
  written: readonly MessageParam[];
  /** Records not written yet (handed on by the previous iteration). */
  pending: readonly TranscriptRecord[];
  /** The error the model phase ended with. */
  error: { readonly error: unknown } | undefined;
  interrupted: boolean;
  /** Reactive compaction took over: its `Continue` ends the iteration. */
  recovered: boolean;
  compactFailure: string | undefined;
  /** The write of a tool-use response's record started as it completed (earlyRecord.ts); awaited before the decision. */
  early: Promise<void> | undefined;
  /** Uuids of the records written during the iteration, which its end leaves out. */
  readonly writtenEarly: Set<string>;
  /** `started` events of commands absorbed in this iteration, emitted with its end. */
  readonly lifecycle: LoopEvent[];
}
