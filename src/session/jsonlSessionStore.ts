/**
 * The default `SessionStore`: one `<sessionId>.jsonl` per session in a per-workspace directory,
 * one record per line, appended through an `O_APPEND` file handle.
 *
 * Durability: each `append` is one `write` of complete lines followed by `fdatasync` before the
 * promise resolves, so a record the loop was told is stored survives even an OS crash (a process
 * kill alone never loses written bytes; the sync is for power loss). The cost is measured by
 * `bench/session.bench.ts`; `durability: 'none'` skips the sync for callers that accept the risk.
 *
 * Crash repair: opening a session to resume cuts off a trailing partial line (a write the dying
 * process never finished and never acknowledged), so new records start on a clean line.
 */
import { constants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  InvalidSessionRecordError,
  SessionClosedError,
  SessionExistsError,
  SessionFileTypeError,
  SessionNotFoundError,
  SessionWriteError,
} from './errors.js';
import { acquireLock, codeOf, type HeldLock } from './lock.js';
import { parseTranscript } from './parseTranscript.js';
import { isPlainSessionRecord } from './recordShape.js';
import { assertValidSessionId, defaultSessionDir } from './paths.js';
import { sessionRecordSchema, type SessionRecord } from './records.js';
import type { OpenMode, SessionInfo, SessionStore, SessionTranscript, SessionWriter } from './store.js';

/** Options of {@link createJsonlSessionStore}: where the transcripts live. */
export interface JsonlSessionStoreOptions {
  /** The workspace the sessions belong to (resolved to an absolute path). */
  readonly workspace: string;
  /** Default: `~/.rxagent/projects/<workspace-slug>`. Created on first open. */
  readonly dir?: string;
  /** `fsync` (default): fdatasync before each append resolves. `none`: leave flushing to the OS. */
  readonly durability?: 'fsync' | 'none';
  /** Check each appended record against the schema (default true): never write what cannot be read back. */
  readonly validate?: boolean;
  /**
   * Strings never written (replaced by `[redacted]`), e.g. the API key: should a hostile endpoint
   * echo it back as model text, it must not be kept on disk. Strings shorter than 8 are ignored.
   */
  readonly redactSecrets?: readonly string[];
}

/** The JSONL {@link SessionStore}. */
export interface JsonlSessionStore extends SessionStore {
  readonly dir: string;
  /** The transcript file of a session. */
  pathOf(sessionId: string): string;
}

/** Creates the default session store: one append-only JSONL transcript per session. */
export function createJsonlSessionStore(options: JsonlSessionStoreOptions): JsonlSessionStore {
  const workspace = resolve(options.workspace);
  const dir = resolve(options.dir ?? defaultSessionDir(workspace));
  const durability = options.durability ?? 'fsync';
  const validate = options.validate ?? true;
  const secrets = (options.redactSecrets ?? []).filter((secret) => secret.length >= 8);
  const pathOf = (sessionId: string): string => {
    assertValidSessionId(sessionId);
    return join(dir, `${sessionId}.jsonl`);
  };

  return {
    workspace,
    dir,
    pathOf,

    async open(sessionId: string, { mode }: { readonly mode: OpenMode }): Promise<SessionWriter> {
      const path = pathOf(sessionId);
      // Transcripts hold the whole conversation (file contents, command output): owner only.
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const lock = await acquireLock(join(dir, `${sessionId}.lock`), sessionId);
      try {
        const handle = await openTranscript(sessionId, path, mode, dir, durability);
        return createWriter({ sessionId, path, handle, lock, durability, validate, secrets });
      } catch (error) {
        await lock.release();
        throw error;
      }
    },

    async list(): Promise<SessionInfo[]> {
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch (error) {
        if (codeOf(error) === 'ENOENT') return [];
        throw error;
      }
      const infos = await Promise.all(
        names
          .filter((name) => name.endsWith('.jsonl'))
          .map(async (name): Promise<SessionInfo | undefined> => {
            const location = join(dir, name);
            const stat = await fs.stat(location).catch(() => undefined);
            if (!stat?.isFile()) return undefined;
            return { sessionId: name.slice(0, -'.jsonl'.length), modifiedAt: stat.mtime, sizeBytes: stat.size, location };
          }),
      );
      return infos
        .filter((info): info is SessionInfo => info !== undefined)
        .sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime() || a.sessionId.localeCompare(b.sessionId));
    },

    async read(sessionId: string): Promise<SessionTranscript> {
      const path = pathOf(sessionId);
      let text: string;
      let handle: FileHandle;
      try {
        handle = await openRegular(sessionId, path, constants.O_RDONLY);
      } catch (error) {
        if (codeOf(error) === 'ENOENT') throw new SessionNotFoundError(sessionId, dir);
        throw error;
      }
      try {
        // Bytes first, decoded once: readFile('utf8') decodes chunk by chunk into a string of
        // pieces that the line scan then copies flat again (a third slower on 10,000 records).
        text = (await handle.readFile()).toString('utf8');
      } finally {
        await handle.close();
      }
      const { records, warnings } = parseTranscript(text);
      return { sessionId, records, warnings };
    },
  };
}

async function openTranscript(
  sessionId: string,
  path: string,
  mode: OpenMode,
  dir: string,
  durability: 'fsync' | 'none',
): Promise<FileHandle> {
  if (mode === 'create') {
    let handle: FileHandle;
    try {
      handle = await fs.open(path, 'ax', 0o600); // O_APPEND | O_CREAT | O_EXCL, owner only
    } catch (error) {
      if (codeOf(error) === 'EEXIST') throw new SessionExistsError(sessionId, path);
      throw new SessionWriteError(sessionId, path, codeOf(error), error);
    }
    // The new directory entry must survive a power loss too, not only the file's bytes.
    if (durability === 'fsync') await syncDirectory(dir);
    return handle;
  }
  let handle: FileHandle;
  try {
    // One descriptor for the repair and the appends: read/write, appending, checked regular.
    handle = await openRegular(sessionId, path, constants.O_RDWR | constants.O_APPEND);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') throw new SessionNotFoundError(sessionId, dir);
    if (error instanceof SessionFileTypeError) throw error;
    throw new SessionWriteError(sessionId, path, codeOf(error), error);
  }
  try {
    await truncatePartialTail(handle);
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw new SessionWriteError(sessionId, path, codeOf(error), error);
  }
}

/**
 * Opens an existing transcript without following a symlink (O_NOFOLLOW) or waiting on a FIFO
 * (O_NONBLOCK), and refuses anything but a regular file (SessionFileTypeError).
 */
async function openRegular(sessionId: string, path: string, flags: number): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await fs.open(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ELOOP') throw new SessionFileTypeError(sessionId, path, 'a symbolic link');
    if (code === 'ENXIO') throw new SessionFileTypeError(sessionId, path, 'a socket');
    if (code === 'EISDIR') throw new SessionFileTypeError(sessionId, path, 'a directory');
    throw error;
  }
  const st = await handle.stat();
  if (!st.isFile()) {
    await handle.close();
    throw new SessionFileTypeError(sessionId, path, st.isFIFO() ? 'a FIFO' : st.isDirectory() ? 'a directory' : 'a device or socket');
  }
  return handle;
}

/** Cuts the file back to its last newline (a partial last line was never acknowledged). */
async function truncatePartialTail(handle: FileHandle): Promise<void> {
  const { size } = await handle.stat();
  if (size === 0) return;
  const chunk = Buffer.alloc(Math.min(size, 64 * 1024));
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (newline !== -1) {
      const keep = start + newline + 1;
      if (keep !== size) await handle.truncate(keep);
      return;
    }
    end = start;
  }
  await handle.truncate(0); // not one complete line in the whole file
}

async function syncDirectory(dir: string): Promise<void> {
  // Not every platform can open a directory for fsync (Windows); the file's own sync still holds.
  const handle = await fs.open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close().catch(() => undefined);
}

interface WriterParts {
  readonly sessionId: string;
  readonly path: string;
  readonly handle: FileHandle;
  readonly lock: HeldLock;
  readonly durability: 'fsync' | 'none';
  readonly validate: boolean;
  readonly secrets: readonly string[];
}

function createWriter({ sessionId, path, handle, lock, durability, validate, secrets }: WriterParts): SessionWriter {
  // Appends run one after the other on this chain, so records land in call order.
  let tail: Promise<void> = Promise.resolve();
  let failure: SessionWriteError | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;

  const write = async (bytes: Buffer): Promise<void> => {
    if (failure) throw failure;
    try {
      let offset = 0;
      while (offset < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
        offset += bytesWritten;
      }
      if (durability === 'fsync') await handle.datasync();
    } catch (error) {
      // A torn write may have left part of a line: nothing more may be appended after it.
      failure = new SessionWriteError(sessionId, path, codeOf(error), error);
      throw failure;
    }
  };

  return {
    sessionId,
    append(records: readonly SessionRecord[]): Promise<void> {
      if (closed) return Promise.reject(new SessionClosedError(sessionId));
      if (failure) return Promise.reject(failure);
      if (records.length === 0) return tail;
      let text = '';
      for (let i = 0; i < records.length; i++) {
        const record = records[i]!;
        if (record.sessionId !== sessionId) {
          return Promise.reject(
            new InvalidSessionRecordError(sessionId, i, `it belongs to session ${JSON.stringify(record.sessionId)}`),
          );
        }
        // The fast check says yes only for records the schema accepts; the schema decides (and
        // explains) the rest. Its first use in a process costs ~15 ms (zod builds its parser),
        // paid before the first model request of every run otherwise.
        if (validate && !isPlainSessionRecord(record)) {
          const parsed = sessionRecordSchema.safeParse(record);
          if (!parsed.success) {
            const issue = parsed.error.issues[0];
            return Promise.reject(
              new InvalidSessionRecordError(sessionId, i, issue ? `${issue.path.join('.') || 'record'}: ${issue.message}` : 'schema mismatch'),
            );
          }
        }
        text += `${JSON.stringify(record)}\n`;
      }
      for (const secret of secrets) if (text.includes(secret)) text = text.split(secret).join('[redacted]');
      const bytes = Buffer.from(text, 'utf8');
      const done = tail.then(() => write(bytes));
      tail = done.catch(() => undefined);
      return done;
    },
    close(): Promise<void> {
      closed = true;
      closing ??= tail.then(async () => {
        await handle.close().catch(() => undefined);
        await lock.release();
      });
      return closing;
    },
  };
}
