/**
 * Replacing a file so that it is always either the old content or the new, never a mix: the new
 * content goes to a temporary file in the same directory, is fsynced, takes the old file's mode
 * (and owner, where allowed), and is renamed over the old name. A full disk, a crash or a kill
 * mid-write leaves the original as it was; truncate-then-write had destroyed a source file.
 *
 * What is refused before anything is written:
 * - a target with more than one hard link: another name, possibly outside the workspace, shares
 *   its content; renaming would silently split them, writing in place would change the other.
 * - a target that is not a regular file, or has become a symlink since it was resolved.
 * The temporary file is opened O_EXCL|O_NOFOLLOW and checked to lie inside the roots through
 * its descriptor, so a directory swapped for a link after the check writes nothing outside.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { type FileHandle, lstat, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { realPathOfFd } from './openVerified.js';
import { ToolRefusal } from './workspace.js';

/** The disk (or the user's quota) is full: nothing was changed, the original file is intact. */
export class DiskFullError extends Error {
  override readonly name = 'DiskFullError';
  constructor(
    readonly path: string,
    readonly code: 'ENOSPC' | 'EDQUOT',
  ) {
    super(
      `Could not write ${path}: ${code === 'ENOSPC' ? 'the disk is full' : 'the disk quota is exceeded'} (${code}). ` +
        'Nothing was changed: the file is exactly as it was before this call. Free some space, then retry.',
    );
  }
}

export interface AtomicWriteOptions {
  /** Whether a real path lies in the workspace roots. */
  readonly contains: (realPath: string) => boolean;
}

/** Refuses a target that is not a plain, single-named regular file. `undefined` when it does not exist. */
export async function assertReplaceable(path: string): Promise<{ mode: number; uid: number; gid: number } | undefined> {
  const st = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (st === undefined) return undefined;
  if (st.isSymbolicLink()) throw new ToolRefusal(`${path} became a symbolic link after it was checked; refusing to write through it.`);
  if (!st.isFile()) throw new ToolRefusal(`${path} is not a regular file (a directory, FIFO, device or socket); only regular files can be written.`);
  if (st.nlink > 1) {
    throw new ToolRefusal(
      `Refusing to write ${path}: it has ${st.nlink} hard links, so other names (possibly outside the workspace) share its content. ` +
        'Write and Edit never write through a hard link. To change only this name, copy it first (cp --remove-destination or cp to a new file), then edit the copy.',
    );
  }
  return { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
}

/**
 * Writes `content` to `path` atomically (see the module comment) and returns the new file's stat.
 * Throws DiskFullError or ToolRefusal, with the original untouched.
 */
export async function writeFileAtomic(path: string, content: string, options: AtomicWriteOptions): Promise<Stats> {
  const before = await assertReplaceable(path);
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path).slice(0, 200)}.rxagent-${randomBytes(6).toString('hex')}.tmp`);
  let handle: FileHandle | undefined;
  let created = false;
  try {
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, before?.mode ?? 0o666);
    created = true;
    const real = realPathOfFd(handle.fd);
    if (real !== undefined && !options.contains(real)) {
      throw new ToolRefusal(`Access denied: ${dir} now resolves outside the workspace (it changed after the check); nothing was written.`);
    }
    await handle.writeFile(content, 'utf8');
    if (before) {
      // open() applied the umask; the replacement keeps the old file's exact mode, and its owner
      // where we may set it (root editing another user's file).
      await handle.chmod(before.mode);
      if (before.uid !== process.getuid?.() || before.gid !== process.getgid?.()) await handle.chown(before.uid, before.gid).catch(() => {});
    }
    await handle.sync();
    const written = await handle.stat(); // a rename keeps mtime and size
    await handle.close();
    handle = undefined;
    // Checked again right before the rename: the target may have been swapped meanwhile.
    await assertReplaceable(path);
    await rename(temp, path);
    created = false;
    await syncDirectory(dir);
    return written;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') throw new DiskFullError(path, code);
    throw error;
  } finally {
    await handle?.close().catch(() => {});
    if (created) await unlink(temp).catch(() => {});
  }
}

/** Makes the rename itself durable; best effort (some file systems refuse fsync on a directory). */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0)).catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => {});
  await handle.close().catch(() => {});
}
