/**
 * The transcript side of a tool-use response written early (earlyRecord.ts): the model phase's
 * sink starts the write the moment the response is complete, and the decision waits for it, so
 * the iteration's own write comes after it and records keep their chain order.
 */
import { defer, EMPTY, from, ignoreElements, type Observable } from 'rxjs';
import { earlyRecord } from './earlyRecord.js';
import type { EventSink } from './events.js';
import type { IterationLog } from './iterationLog.js';
import type { RunContext } from './runContext.js';
import type { TranscriptSink } from './seams.js';
import { TranscriptWriteFailure } from './transcriptWrites.js';

/**
 * The model phase's sink, which also starts the write of a tool-use response's record the moment
 * the response is complete (earlyRecord.ts), while its tools run. Not awaited here: the event
 * goes on at once, and `awaitEarly` holds the decision until the write is done.
 */
export function writingEarly(ctx: RunContext, transcript: TranscriptSink, log: IterationLog, emit: EventSink): EventSink {
  return (event) => {
    const record = earlyRecord(log.latest.state, event, log.pending, ctx.now());
    if (record) {
      log.writtenEarly.add(record.uuid);
      const write = (log.early ?? Promise.resolve()).then(() => transcript.append([record]));
      log.early = write.catch((error: unknown) => {
        throw new TranscriptWriteFailure(error);
      });
      // Handled: a run torn down before the decision never awaits it.
      log.early.catch(() => undefined);
    }
    emit(event);
  };
}

/** The early write done before the decision (so the iteration's own write comes after it); a failure ends the run as any transcript write failure does. */
export function awaitEarly(log: IterationLog): Observable<never> {
  return defer(() => (log.early ? from(log.early) : EMPTY)).pipe(ignoreElements());
}
