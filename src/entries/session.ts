/**
 * `rxagent/session`: JSONL sessions (start, resume, continue, fork), their store and records,
 * and the transcript sink that writes a loop's records into one.
 */
export {
  InvalidSessionIdError,
  InvalidSessionRecordError,
  SessionClosedError,
  SessionError,
  SessionExistsError,
  SessionFileTypeError,
  SessionLockedError,
  SessionNotFoundError,
  SessionWriteError,
} from '../session/errors.js';
export type { LockHolder, SessionErrorType } from '../session/errors.js';
export { isMessageRecord, sessionRecordSchema } from '../session/records.js';
export type {
  AssistantRecord,
  CompactBoundaryRecord,
  MessageRecord,
  SessionRecord,
  SessionRecordType,
  SummaryRecord,
  SystemRecord,
  TombstoneRecord,
  UserRecord,
} from '../session/records.js';
export type { SessionWarning, SessionWarningKind } from '../session/warnings.js';
export type { OpenMode, SessionInfo, SessionStore, SessionTranscript, SessionWriter } from '../session/store.js';
export { createJsonlSessionStore } from '../session/jsonlSessionStore.js';
export type { JsonlSessionStore, JsonlSessionStoreOptions } from '../session/jsonlSessionStore.js';
export { defaultSessionDir } from '../session/paths.js';
export { parseTranscript } from '../session/parseTranscript.js';
export type { ParsedTranscript } from '../session/parseTranscript.js';
export { rebuildMessages, SESSION_ENDED_TOOL_RESULT } from '../session/rebuild.js';
export type { RebuiltView } from '../session/rebuild.js';
export { continueLatest, fork, resume, startSession } from '../session/sessions.js';
export type { ForkOptions, OpenedSession, SessionOptions } from '../session/sessions.js';
export { createTranscriptSink } from '../session/transcriptSink.js';
export type { SessionTranscriptSink, TranscriptSinkOptions } from '../session/transcriptSink.js';
export type { TranscriptRecord, TranscriptSink } from '../loop/seams.js';
