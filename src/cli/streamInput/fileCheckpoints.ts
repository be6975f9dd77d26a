/**
 * File checkpoints (the SDK's `enableFileCheckpointing`, `Query.rewindFiles()`): each user
 * message opens a checkpoint; the first time Write or Edit replaces a file after it, the file's
 * bytes as they were (or that it did not exist) are kept. Rewinding to a message puts every file
 * changed since it back as it was just before that message, and deletes the ones created since.
 *
 * What it does not cover, as Claude Code's checkpoints do not: changes made by Bash commands or
 * by anything outside the file tools. The originals live in this process's memory (bounded by
 * the file tools' own size limits), so a checkpoint lasts as long as the process, not the session
 * transcript: after a resume in a new process there is nothing to rewind to.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { filePatch } from '../../tools/builtin/filePatch.js';

/** The SDK's `RewindFilesResult`. */
export interface RewindAnswer {
  readonly canRewind: boolean;
  readonly error?: string;
  readonly filesChanged?: string[];
  readonly insertions?: number;
  readonly deletions?: number;
}

export interface FileCheckpoints {
  /** A user message arrived: file changes from now on belong to it. */
  begin(messageId: string): void;
  /** Write or Edit is about to replace `realPath`: keep its bytes unless this checkpoint already has them. */
  beforeWrite(realPath: string): Promise<void>;
  /** Puts the files changed since `messageId` back (`dryRun`: only says what that would change). */
  rewind(messageId: string, dryRun: boolean): Promise<RewindAnswer>;
}

interface Checkpoint {
  readonly messageId: string;
  /** Real path -> the bytes before the first change after the message (null: it did not exist). */
  readonly originals: Map<string, Buffer | null>;
}

async function bytesOf(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Pure: the originals in force for a rewind to checkpoint `from` (the earliest kept after it, per file). */
export function originalsSince(checkpoints: readonly Checkpoint[], from: number): Map<string, Buffer | null> {
  const out = new Map<string, Buffer | null>();
  for (const checkpoint of checkpoints.slice(from)) {
    for (const [path, bytes] of checkpoint.originals) if (!out.has(path)) out.set(path, bytes);
  }
  return out;
}

function lineCounts(from: Buffer | null, to: Buffer | null): { insertions: number; deletions: number } {
  let insertions = 0;
  let deletions = 0;
  for (const hunk of filePatch(from?.toString('utf8') ?? '', to?.toString('utf8') ?? '')) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) insertions += 1;
      else if (line.startsWith('-')) deletions += 1;
    }
  }
  return { insertions, deletions };
}

export function createFileCheckpoints(): FileCheckpoints {
  const checkpoints: Checkpoint[] = [];
  return {
    begin(messageId) {
      checkpoints.push({ messageId, originals: new Map() });
    },
    async beforeWrite(realPath) {
      const current = checkpoints.at(-1);
      if (!current || current.originals.has(realPath)) return;
      current.originals.set(realPath, await bytesOf(realPath));
    },
    async rewind(messageId, dryRun) {
      const from = checkpoints.findIndex((c) => c.messageId === messageId);
      if (from < 0) return { canRewind: false, error: `no checkpoint for user message ${messageId}: it was not sent to this process, or it had no uuid` };
      const filesChanged: string[] = [];
      let insertions = 0;
      let deletions = 0;
      for (const [path, original] of originalsSince(checkpoints, from)) {
        const now = await bytesOf(path);
        if (now === null ? original === null : original !== null && now.equals(original)) continue;
        const counts = lineCounts(now, original);
        insertions += counts.insertions;
        deletions += counts.deletions;
        filesChanged.push(path);
        if (dryRun) continue;
        if (original === null) await rm(path, { force: true });
        else {
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, original);
        }
      }
      return { canRewind: true, filesChanged, insertions, deletions };
    },
  };
}
