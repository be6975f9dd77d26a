/** Writing transcript records: the one operator between a decision and the disk. */
import { catchError, defer, EMPTY, from, ignoreElements, throwError, type Observable } from 'rxjs';
import type { TranscriptRecord, TranscriptSink } from './seams.js';

/** Marks a transcript write failure so the iteration can end with it instead of erroring. */
export class TranscriptWriteFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('transcript write failed');
  }
}

/** Appends `records` (awaited); a failure errors with a `TranscriptWriteFailure`. */
export function writeRecords(sink: TranscriptSink | undefined, records: readonly TranscriptRecord[]): Observable<never> {
  return defer(() => (!sink || records.length === 0 ? EMPTY : from(sink.append(records)))).pipe(
    ignoreElements(),
    catchError((error: unknown) => throwError(() => new TranscriptWriteFailure(error))),
  );
}
