/**
 * Two views of the session store for flags that change what a run reads or writes, so the
 * session layer itself stays as it is:
 * - `--no-session-persistence`: the run writes nothing (no transcript file, no lock); an existing
 *   session can still be resumed, read as it is.
 * - `--resume-session-at <id>`: the resumed session is read up to and including that record
 *   (a record uuid, the uuid of a stream-json line that showed it, found through `recordOfLine`,
 *   or the API's id `msg_...` of an assistant message, as printed in stream-json `message.id`); the turns after it are left out of the history, and the run's records chain on
 *   from it (the transcript keeps the old branch, the next resume follows the new one).
 */
import { ConfigurationError } from '../errors.js';
import type { SessionRecord } from '../session/records.js';
import type { SessionStore, SessionWriter } from '../session/store.js';

export function withoutPersistence(store: SessionStore): SessionStore {
  return {
    workspace: store.workspace,
    list: () => store.list(),
    read: (sessionId) => store.read(sessionId),
    async open(sessionId, { mode }): Promise<SessionWriter> {
      // Resuming still needs the session to exist (read throws SessionNotFoundError otherwise).
      if (mode === 'resume') await store.read(sessionId);
      return { sessionId, append: async () => undefined, close: async () => undefined };
    },
  };
}

export function resumedAt(store: SessionStore, sessionId: string, at: string, recordOfLine: (lineUuid: string) => string | undefined = () => undefined): SessionStore {
  return {
    workspace: store.workspace,
    list: () => store.list(),
    open: (id, options) => store.open(id, options),
    async read(id) {
      const transcript = await store.read(id);
      if (id !== sessionId) return transcript;
      const matches = (id: string) => transcript.records.findLastIndex((r) => r.uuid === id || (r.type === 'assistant' && messageIdOf(r) === id));
      let cut = matches(at);
      if (cut < 0) {
        const record = recordOfLine(at);
        if (record !== undefined) cut = matches(record);
      }
      if (cut < 0) throw new ConfigurationError(`--resume-session-at ${at}: no such message in session ${sessionId}`);
      return { ...transcript, records: transcript.records.slice(0, cut + 1) };
    },
  };
}

function messageIdOf(record: SessionRecord): string | undefined {
  return record.type === 'assistant' ? record.messageId : undefined;
}
