/**
 * Starting, resuming, continuing and forking sessions. Each returns an `OpenedSession`: the
 * session's writer (holding its lock), a `TranscriptSink` for the loop chained after the last
 * record, and the message view to start the loop from. Close it with `session.close()`.
 */
import { randomUUID } from 'node:crypto';
import type { MessageParam } from '../protocol/content.js';
import { SessionNotFoundError } from './errors.js';
import { followChain, rebuildMessages, type RebuiltView } from './rebuild.js';
import type { SessionRecord } from './records.js';
import type { SessionStore, SessionWriter } from './store.js';
import { createTranscriptSink, type SessionTranscriptSink } from './transcriptSink.js';
import type { SessionWarning } from './warnings.js';

/** What a session records on the records it makes, and the uuid and clock sources (tests inject them). */
export interface SessionOptions {
  /** Recorded on new records; default: the store's workspace. */
  readonly cwd?: string;
  /** Recorded on new records; default `'unknown'`. */
  readonly version?: string;
  /** uuid source for records made here (default `crypto.randomUUID`). */
  readonly newUuid?: () => string;
  /** Clock for the timestamps of records made here (default `Date.now`). */
  readonly now?: () => number;
}

/** A session ready for the loop: its history, a sink chained after its last record, and its writer lock. */
export interface OpenedSession {
  readonly sessionId: string;
  /** The view to start the loop from (after the last compact boundary, repaired). */
  readonly messages: readonly MessageParam[];
  /** Same index as `messages` (see `RebuiltView.messageUuids`). */
  readonly messageUuids: readonly string[];
  /** What reading and rebuilding had to skip or repair. */
  readonly warnings: readonly SessionWarning[];
  readonly writer: SessionWriter;
  /** Give this to the loop: appends are chained after the session's last record. */
  readonly sink: SessionTranscriptSink;
  /** Closes the writer and releases the lock. */
  close(): Promise<void>;
}

/** A new, empty session (`sessionId` default: a random UUID). */
export async function startSession(
  store: SessionStore,
  options: SessionOptions & { readonly sessionId?: string } = {},
): Promise<OpenedSession> {
  const sessionId = options.sessionId ?? randomUUID();
  const writer = await store.open(sessionId, { mode: 'create' });
  return opened(store, writer, rebuildMessages([]), [], options);
}

/**
 * Resume a session: take its lock, rebuild the view, and persist synthetic results for a turn
 * that was cut off mid-tool (so the transcript says what the model will be told).
 */
export async function resume(store: SessionStore, sessionId: string, options: SessionOptions = {}): Promise<OpenedSession> {
  const writer = await store.open(sessionId, { mode: 'resume' });
  try {
    // Read under the lock: no other writer can add records between this read and our appends.
    const transcript = await store.read(sessionId);
    return await repairAndOpen(store, writer, transcript.records, transcript.warnings, options);
  } catch (error) {
    await writer.close();
    throw error;
  }
}

/** Resume the most recently modified session of the store's workspace. */
export async function continueLatest(store: SessionStore, options: SessionOptions = {}): Promise<OpenedSession> {
  const [latest] = await store.list();
  if (!latest) throw new SessionNotFoundError('', `the sessions of workspace ${store.workspace}`);
  return resume(store, latest.sessionId, options);
}

/** Options of `fork`: the new session's id, and whether to copy only the compacted view. */
export interface ForkOptions extends SessionOptions {
  /** Default: a random UUID. */
  readonly newSessionId?: string;
  /** Copy only from the last compact boundary on (the compacted view) instead of the whole chain. */
  readonly compacted?: boolean;
}

/**
 * A new session starting from another one's history, which is left untouched (read without its
 * lock, so a session still running elsewhere can be forked). The copied records keep their uuids
 * and get the new session id; a `system`/`forked_from` record names the origin.
 */
export async function fork(store: SessionStore, sessionId: string, options: ForkOptions = {}): Promise<OpenedSession> {
  const source = await store.read(sessionId);
  const warnings: SessionWarning[] = [...source.warnings];
  let chain = followChain(source.records, warnings);
  if (options.compacted) {
    const boundary = chain.findLastIndex((record) => record.type === 'compact_boundary');
    if (boundary > 0) chain = chain.slice(boundary);
  }
  const newSessionId = options.newSessionId ?? randomUUID();
  const copied: SessionRecord[] = chain.map((record, i) => ({
    ...record,
    sessionId: newSessionId,
    // The chain is contiguous by construction; rewriting every parent also heals links that
    // `followChain` bridged over a damaged line.
    parentUuid: i === 0 ? null : chain[i - 1]!.uuid,
  }));
  const now = options.now ?? Date.now;
  const newUuid = options.newUuid ?? randomUUID;
  copied.push({
    uuid: newUuid(),
    parentUuid: copied.length > 0 ? copied[copied.length - 1]!.uuid : null,
    sessionId: newSessionId,
    timestamp: new Date(now()).toISOString(),
    cwd: options.cwd ?? store.workspace,
    version: options.version ?? 'unknown',
    type: 'system',
    subtype: 'forked_from',
    data: { sessionId, leafUuid: chain.length > 0 ? chain[chain.length - 1]!.uuid : null, compacted: options.compacted ?? false },
  });

  const writer = await store.open(newSessionId, { mode: 'create' });
  try {
    await writer.append(copied);
    return await repairAndOpen(store, writer, copied, warnings, options);
  } catch (error) {
    await writer.close();
    throw error;
  }
}

async function repairAndOpen(
  store: SessionStore,
  writer: SessionWriter,
  records: readonly SessionRecord[],
  readWarnings: readonly SessionWarning[],
  options: SessionOptions,
): Promise<OpenedSession> {
  let view = rebuildMessages(records);
  if (view.tailRepair && view.leafUuid !== null) {
    const repair: SessionRecord = {
      uuid: (options.newUuid ?? randomUUID)(),
      parentUuid: view.leafUuid,
      sessionId: writer.sessionId,
      timestamp: new Date((options.now ?? Date.now)()).toISOString(),
      cwd: options.cwd ?? store.workspace,
      version: options.version ?? 'unknown',
      type: 'user',
      message: view.tailRepair,
      reason: 'orphan_results',
    };
    await writer.append([repair]);
    view = { ...view, leafUuid: repair.uuid };
  }
  return opened(store, writer, view, readWarnings, options);
}

function opened(
  store: SessionStore,
  writer: SessionWriter,
  view: RebuiltView,
  readWarnings: readonly SessionWarning[],
  options: SessionOptions,
): OpenedSession {
  const sink = createTranscriptSink(writer, {
    cwd: options.cwd ?? store.workspace,
    version: options.version ?? 'unknown',
    parentUuid: view.leafUuid,
    ...(options.newUuid ? { newUuid: options.newUuid } : {}),
  });
  return {
    sessionId: writer.sessionId,
    messages: view.messages,
    messageUuids: view.messageUuids,
    warnings: [...readWarnings, ...view.warnings],
    writer,
    sink,
    close: () => writer.close(),
  };
}
