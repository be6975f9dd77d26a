/**
 * One line of a session transcript (JSONL). Records form a chain through `parentUuid` (null for
 * the first record of a file); the writer links each record to the one appended before it, so a
 * file read top to bottom is the chain.
 *
 * Message-bearing records (`user`, `assistant`, `summary`) carry a wire-ready `MessageParam`
 * (`{ role, content }` only); the assistant's API metadata (id, model, stop reason, usage) sits
 * next to it, so rebuilding the request view never has to strip fields.
 *
 * The schemas are `looseObject`: a newer version may add fields, and an old reader must still be
 * able to resume the session.
 */
import { z } from 'zod';
import { messageParamSchema, stopReasonSchema, usageSchema } from '../protocol/content.js';
import { lazySchema } from '../util/lazySchema.js';

/** The ways a boundary can be drawn (kept in step with `CompactTrigger` of src/loop/types.ts). */
export const compactTriggerSchema = z.enum(['auto', 'reactive', 'manual', 'snip', 'microcompact']);

/*
 * The records' fields are getters (zod 4's deferred shape), as in protocol/content.ts: built at
 * the first parse (a resume), not when the command loads, which every `-p` run does before its
 * first request and most never parse a record (issue 20 §3). The schemas parse the same.
 */

/** The fields every record has, built once for all six records at the first that needs them. */
const recordBase = lazySchema(() => ({
  uuid: z.string().min(1),
  /** The record before this one in the chain; null for the first record of the session. */
  parentUuid: z.string().min(1).nullable(),
  sessionId: z.string().min(1),
  /** ISO 8601, e.g. `2026-01-02T03:04:05.678Z`. */
  timestamp: z.iso.datetime(),
  /** The workspace the session ran in. */
  cwd: z.string(),
  /** The rxagent version that wrote the record. */
  version: z.string(),
  /** Query tracking of the loop event that produced the record (SPEC §2). */
  chainId: z.string().optional(),
  depth: z.number().int().nonnegative().optional(),
}));
type RecordBase = ReturnType<typeof recordBase>;

/** A record's shape: the common fields first (as getters into `recordBase`), then its own. */
function withRecordBase<Own extends object>(own: Own): RecordBase & Own {
  const shape = {};
  for (const key of ['uuid', 'parentUuid', 'sessionId', 'timestamp', 'cwd', 'version', 'chainId', 'depth'] as const satisfies readonly (keyof RecordBase)[]) {
    Object.defineProperty(shape, key, { get: () => recordBase()[key], enumerable: true, configurable: true });
  }
  Object.defineProperties(shape, Object.getOwnPropertyDescriptors(own));
  return shape as RecordBase & Own;
}

/** A user message of the conversation (a prompt, tool results, a continuation, ...). */
export const userRecordSchema = z.looseObject(
  withRecordBase({
    get type() {
      return z.literal('user');
    },
    get message() {
      return messageParamSchema.extend({ role: z.literal('user') });
    },
    /** Why the message entered the history (`prompt`, `tool_results`, ...: `UserMessageReason`). */
    get reason() {
      return z.string().optional();
    },
    /** Hidden from transcripts shown to people (continuation prompts, nudges). */
    get isMeta() {
      return z.boolean().optional();
    },
  }),
);

/** An assistant message of the conversation, with the API's id, stop reason and usage when known. */
export const assistantRecordSchema = z.looseObject(
  withRecordBase({
    get type() {
      return z.literal('assistant');
    },
    get message() {
      return messageParamSchema.extend({ role: z.literal('assistant') });
    },
    /** The API's message id (`msg_...`). */
    get messageId() {
      return z.string().optional();
    },
    get model() {
      return z.string().optional();
    },
    get stopReason() {
      return stopReasonSchema.nullable().optional();
    },
    get usage() {
      return usageSchema.optional();
    },
  }),
);

/** History before this point is replaced by the `summary` records that follow it. */
export const compactBoundaryRecordSchema = z.looseObject(
  withRecordBase({
    get type() {
      return z.literal('compact_boundary');
    },
    get trigger() {
      return compactTriggerSchema;
    },
    get preTokens() {
      return z.number().nonnegative();
    },
    get postTokens() {
      return z.number().nonnegative();
    },
  }),
);

/** One message of a compacted view (the summary itself, or a message kept verbatim). */
export const summaryRecordSchema = z.looseObject(
  withRecordBase({
    get type() {
      return z.literal('summary');
    },
    get message() {
      return messageParamSchema;
    },
  }),
);

/** An event worth keeping that is not part of the conversation (init, fork origin, ...). */
export const systemRecordSchema = z.looseObject(
  withRecordBase({
    get type() {
      return z.literal('system');
    },
    get subtype() {
      return z.string().min(1);
    },
    get data() {
      return z.unknown().optional();
    },
  }),
);

/** Earlier message records to remove from the view (a failed attempt before a model fallback). */
export const tombstoneRecordSchema = z.looseObject(
  withRecordBase({
    get type() {
      return z.literal('tombstone');
    },
    get uuids() {
      return z.array(z.string().min(1));
    },
  }),
);

/**
 * One line of a JSONL transcript: any record, told apart by `type`. The records are loose objects
 * so that fields added by a newer version are kept, not refused.
 */
export const sessionRecordSchema = z.discriminatedUnion('type', [
  userRecordSchema,
  assistantRecordSchema,
  compactBoundaryRecordSchema,
  summaryRecordSchema,
  systemRecordSchema,
  tombstoneRecordSchema,
]);

/** A user message line of a transcript. */
export type UserRecord = z.infer<typeof userRecordSchema>;
/** An assistant message line of a transcript. */
export type AssistantRecord = z.infer<typeof assistantRecordSchema>;
/** The line after which the history is replaced by the summary records that follow. */
export type CompactBoundaryRecord = z.infer<typeof compactBoundaryRecordSchema>;
/** One message of a compacted view. */
export type SummaryRecord = z.infer<typeof summaryRecordSchema>;
/** A line that is not part of the conversation (init, fork origin, ...). */
export type SystemRecord = z.infer<typeof systemRecordSchema>;
/** A line that removes earlier message records from the view. */
export type TombstoneRecord = z.infer<typeof tombstoneRecordSchema>;
/** Any line of a transcript, as validated by `sessionRecordSchema`. */
export type SessionRecord = z.infer<typeof sessionRecordSchema>;
/** The `type` tag of every transcript record. */
export type SessionRecordType = SessionRecord['type'];

/** Records that carry a message of the conversation. */
export type MessageRecord = UserRecord | AssistantRecord | SummaryRecord;

/** Narrows a record to one that carries a conversation message. */
export function isMessageRecord(record: SessionRecord): record is MessageRecord {
  return record.type === 'user' || record.type === 'assistant' || record.type === 'summary';
}
