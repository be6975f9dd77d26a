/**
 * A response that asks for tools is written to the transcript as soon as it is complete, not
 * with its results at the iteration's end. Tools can run for minutes; a process killed meanwhile
 * (SIGKILL, a crash, a lost machine) would otherwise leave no trace of the calls it started, and
 * a resumed session would not know they ran. With the record on disk, the rebuild on resume
 * answers each unanswered call with a synthetic result (src/session/rebuild.ts), so the next
 * request is valid and says what happened. The record is the one the iteration's end would
 * write (same uuid, same parent, same content); that write then leaves it out.
 */
import { replayable } from './messages.js';
import { assistantAddition } from './decision.js';
import { recordsOf } from './finish.js';
import type { TranscriptRecord } from './seams.js';
import type { LoopEvent, LoopState } from './types.js';

type MessageRecord = Extract<TranscriptRecord, { readonly type: 'assistant' }>;

/**
 * The record to write now for `event`, or undefined when it waits for the iteration's end:
 * anything but a complete tool-use response, or while a paused turn's record is held (it is
 * joined with this message into one record, see pausedRecord.ts).
 */
export function earlyRecord(state: LoopState, event: LoopEvent, held: readonly TranscriptRecord[], now: number): MessageRecord | undefined {
  if (event.type !== 'assistant_message' || event.message.stop_reason !== 'tool_use' || held.length > 0) return undefined;
  const message = event.message;
  // A message with tool_use blocks stays replayable (as in batchAdditions).
  const replay = replayable(message) ?? { role: 'assistant' as const, content: message.content };
  return recordsOf(state, [assistantAddition(replay, event.uuid, message)], now)[0] as MessageRecord;
}
