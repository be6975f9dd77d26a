/**
 * The loop's `TranscriptSink` backed by a `SessionWriter`: turns the loop's transcript records
 * (messages, tombstones, compact boundaries) into session records linked into one chain, and
 * resolves once they are durable — the loop awaits that before its next model request.
 */
import { randomUUID } from 'node:crypto';
import type { TranscriptRecord, TranscriptSink } from '../loop/seams.js';
import { assertNever } from '../util/assertNever.js';
import type { SessionRecord } from './records.js';
import type { SessionWriter } from './store.js';

/** Options of `createTranscriptSink`: what each record says about where it was written, and where the chain starts. */
export interface TranscriptSinkOptions {
  /** The workspace recorded on each record. */
  readonly cwd: string;
  /** The rxagent version recorded on each record. */
  readonly version: string;
  /** The last record already in the transcript (null for a new session). */
  readonly parentUuid: string | null;
  /** uuid source for records the loop gives no uuid (tombstones, boundaries, summaries). */
  readonly newUuid?: () => string;
}

/** A loop transcript sink writing to one session; `lastUuid` is where the next record chains. */
export interface SessionTranscriptSink extends TranscriptSink {
  readonly sessionId: string;
  /** The uuid of the last record handed to the writer (the parent of the next one). */
  readonly lastUuid: string | null;
}

/** Creates the loop's transcript sink over a session writer: records are durable before the next model request. */
export function createTranscriptSink(writer: SessionWriter, options: TranscriptSinkOptions): SessionTranscriptSink {
  let lastUuid = options.parentUuid;
  const context = { sessionId: writer.sessionId, cwd: options.cwd, version: options.version, newUuid: options.newUuid ?? randomUUID };
  return {
    sessionId: writer.sessionId,
    get lastUuid() {
      return lastUuid;
    },
    append(records: readonly TranscriptRecord[]): Promise<void> {
      // Linked synchronously, in call order: the writer applies appends in the same order, and a
      // failed write ends the session, so the chain never skips a record that was written.
      const converted = toSessionRecords(records, context, lastUuid);
      if (converted.length > 0) lastUuid = converted[converted.length - 1]!.uuid;
      return writer.append(converted);
    },
  };
}

/** What `toSessionRecords` stamps on every record it makes. */
export interface RecordContext {
  readonly sessionId: string;
  readonly cwd: string;
  readonly version: string;
  readonly newUuid: () => string;
}

/** Pure apart from `newUuid`: the loop's records as session records, chained after `parentUuid`. */
export function toSessionRecords(
  records: readonly TranscriptRecord[],
  context: RecordContext,
  parentUuid: string | null,
): SessionRecord[] {
  const out: SessionRecord[] = [];
  let parent = parentUuid;
  const base = (uuid: string, record: TranscriptRecord) => {
    const fields = {
      uuid,
      parentUuid: parent,
      sessionId: context.sessionId,
      timestamp: new Date(record.timestamp).toISOString(),
      cwd: context.cwd,
      version: context.version,
      chainId: record.chainId,
      depth: record.depth,
    };
    parent = uuid;
    return fields;
  };
  for (const record of records) {
    switch (record.type) {
      case 'assistant': {
        const { message } = record;
        out.push({
          ...base(record.uuid, record),
          type: 'assistant',
          message: { role: 'assistant', content: message.content },
          messageId: message.id,
          model: message.model,
          stopReason: message.stop_reason,
          usage: message.usage,
        });
        break;
      }
      case 'user':
        out.push({
          ...base(record.uuid, record),
          type: 'user',
          // A role other than 'user' here is a loop bug; the writer's schema check rejects it.
          message: { role: record.message.role as 'user', content: record.message.content },
          reason: record.reason,
          isMeta: record.isMeta,
        });
        break;
      case 'tombstone':
        out.push({ ...base(context.newUuid(), record), type: 'tombstone', uuids: [...record.uuids] });
        break;
      case 'compact_boundary':
        out.push({
          ...base(context.newUuid(), record),
          type: 'compact_boundary',
          trigger: record.boundary.trigger,
          preTokens: record.boundary.preTokens,
          postTokens: record.boundary.postTokens,
        });
        for (const message of record.messages) {
          out.push({ ...base(context.newUuid(), record), type: 'summary', message: { role: message.role, content: message.content } });
        }
        break;
      default:
        assertNever(record, 'transcript record');
    }
  }
  return out;
}
