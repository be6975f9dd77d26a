/**
 * Tells a handed-back run from a lost result. Both leave a retried job with a transcript that ends
 * with an assistant message after the job's prompt:
 * - a run aborted while the model streamed (a second SIGTERM hands it back) stores what it had of
 *   the answer, with no stop reason: the model never finished it, so the retry must ask again;
 * - a run that ended but whose worker died before storing the result stores a finished answer
 *   (a stop reason): asking again would answer twice, so the retry refuses (`JobResultLostError`).
 * The stored record's stop reason is what tells them apart; the history view alone cannot.
 */
import type pg from 'pg';
import { rebuildMessages } from '../../session/rebuild.js';
import type { AssistantRecord, SessionRecord } from '../../session/records.js';
import { readSessionRecords } from '../pgSessionStore.js';

/** The record of the session's last message when it is an answer cut off mid-stream; else undefined. */
export async function cutOffAnswer(db: pg.Pool, sessionId: string): Promise<AssistantRecord | undefined> {
  return lastCutOffAnswer((await readSessionRecords(db, sessionId)).records);
}

/** Pure: the record behind the rebuilt view's last message, when it is an assistant answer without a stop reason. */
export function lastCutOffAnswer(records: readonly SessionRecord[]): AssistantRecord | undefined {
  const view = rebuildMessages(records);
  const lastUuid = view.messageUuids[view.messageUuids.length - 1];
  if (lastUuid === undefined || view.messages[view.messages.length - 1]?.role !== 'assistant') return undefined;
  const record = records.find((r): r is AssistantRecord => r.type === 'assistant' && r.uuid === lastUuid);
  // `null` is "never finished"; a missing stop reason (an old or foreign record) proves nothing.
  return record?.stopReason === null ? record : undefined;
}
