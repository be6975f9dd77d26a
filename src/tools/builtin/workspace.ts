/**
 * The session-scoped state the file tools share: the workspace roots they are confined to and
 * the record of which files were Read (so Write/Edit never overwrite blind).
 *
 * It is a plain object the tool factory closes over rather than a `SharedContext` entry: the
 * read tracker must change during safe (parallel) tool calls too, and SharedContext changes of
 * safe tools are deliberately dropped (SPEC §4). Keeping it in one closure also means no tool
 * can be handed a forged workspace through the context.
 */
import { constants, realpathSync } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, resolve, sep } from 'node:path';

/** A refusal the model can act on: the message says why and what to do instead. */
export class ToolRefusal extends Error {
  override readonly name = 'ToolRefusal';
}

/** What the workspace remembers of a Read file, so Write/Edit can tell whether it changed since. */
export interface ReadRecord {
  readonly mtimeMs: number;
  readonly size: number;
  /** `Date.now()` of the read; for diagnostics only. */
  readonly readAt: number;
}

/** The state the file tools of one session share: roots and the Read record. */
export interface Workspace {
  /** Real (symlink-free) absolute paths of the roots; the first is the cwd's root. */
  readonly roots: readonly string[];
  /** Real absolute working directory; relative paths resolve against it. */
  readonly cwd: string;
  /** Files Read in this session, by real path. */
  readonly readFiles: Map<string, ReadRecord>;
  /**
   * Resolves `path` (relative to cwd, `~/` to home) to a real absolute path inside a root, following
   * `..` and symlinks; for a path that does not exist yet, its nearest existing parent is resolved.
   * Throws `ToolRefusal` when the result lies outside every root.
   */
  resolveInside(path: string): Promise<string>;
  /**
   * Opens a path returned by `resolveInside` without following a symlink planted there since the
   * check (O_NOFOLLOW), then confirms where the descriptor really points (`/proc/self/fd`, when
   * available) so a directory swapped for a symlink meanwhile is caught too. Never truncates:
   * writers truncate through the handle once it is confirmed.
   */
  openInside(realPath: string, flags: 'read' | 'write' | 'create'): Promise<FileHandle>;
  /** Whether a real absolute path lies in a root (no filesystem access). */
  contains(realPath: string): boolean;
  /**
   * Whether a walk of `toolName` (Glob, Grep) must leave out the file at `path` (really at `real`,
   * for a link) because a Read deny or ask rule covers it; see `createReadDenyCheck`.
   */
  isReadDenied(toolName: string, path: string, real?: string): boolean;
  /** Record that `realPath` was read with the given stat. */
  recordRead(realPath: string, st: { mtimeMs: number; size: number }): void;
  /**
   * Throws `ToolRefusal` unless `realPath` was Read in this session and is unchanged on disk
   * since (mtime and size). `verb` names the action for the message ("edit", "overwrite").
   */
  assertFresh(realPath: string, verb: string): Promise<void>;
  /**
   * Called by Write and Edit just before they replace `realPath` (it may not exist yet), so a
   * file checkpoint can keep what it held; a failure here refuses the write, never loses the original.
   */
  beforeWrite?(realPath: string): Promise<void>;
}

/** Options of {@link createWorkspace}. */
export interface WorkspaceOptions {
  /** The working directory; it is always a root. */
  readonly cwd: string;
  /** More roots (`--add-dir`). */
  readonly roots?: readonly string[];
  /** Home directory for `~/` paths; default `os.homedir()`. */
  readonly homeDir?: string;
  /** The files Glob and Grep leave out of their walks (default: none); `createReadDenyCheck` builds it from rules. */
  readonly readDenied?: (toolName: string, path: string, real?: string) => boolean;
  /** See `Workspace.beforeWrite` (default: nothing). */
  readonly beforeWrite?: (realPath: string) => Promise<void>;
}

/** Creates the workspace the built-in file tools of one session close over. */
export function createWorkspace(options: WorkspaceOptions): Workspace {
  const cwd = realpathSync(resolve(options.cwd));
  const roots = [cwd, ...(options.roots ?? []).map((r) => realpathSync(resolve(cwd, r)))];
  const home = options.homeDir ?? homedir();
  const readFiles = new Map<string, ReadRecord>();

  const contains = (p: string): boolean =>
    roots.some((root) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep));

  const absolute = (p: string): string => {
    if (p === '~') return home;
    if (p.startsWith('~/')) return resolve(home, p.slice(2));
    return isAbsolute(p) ? resolve(p) : resolve(cwd, p);
  };

  /**
   * realpath of `abs`, or for a path that does not exist, realpath of its nearest existing
   * parent plus the missing tail. A dangling symlink on the way is followed to its target, so
   * writing through it can never escape the roots.
   */
  async function realOrNearestParent(abs: string, hops = 0): Promise<string> {
    if (hops > 40) throw new ToolRefusal(`Too many levels of symbolic links resolving ${abs}.`);
    const missing: string[] = [];
    let current = abs;
    for (;;) {
      try {
        const real = await realpath(current);
        return missing.length === 0 ? real : resolve(real, ...missing.reverse());
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
        const link = await lstat(current).then((s) => s.isSymbolicLink(), () => false);
        if (link) {
          const target = resolve(dirname(current), await readlink(current));
          return realOrNearestParent(resolve(target, ...missing.reverse()), hops + 1);
        }
        const parent = dirname(current);
        if (parent === current) return abs;
        missing.push(basename(current));
        current = parent;
      }
    }
  }

  /**
   * Where the kernel would land: `path.resolve` drops `link/..` lexically, but the kernel leaves
   * the link's target, so `ssh-link/../.ssh/id_rsa` means the home's key, not a file here.
   */
  async function kernelResolve(raw: string, abs: string): Promise<string> {
    if (!raw.split(/[/]/).includes('..')) return realOrNearestParent(abs);
    const expanded = raw === '~' || raw.startsWith('~/') ? resolve(home) + raw.slice(1) : raw;
    let current = isAbsolute(expanded) ? sep : cwd;
    for (const segment of expanded.split('/')) {
      if (segment === '' || segment === '.') continue;
      current = segment === '..' ? dirname(await realOrNearestParent(current)) : resolve(current, segment);
    }
    return realOrNearestParent(current);
  }

  return {
    roots,
    cwd,
    readFiles,
    contains,
    isReadDenied: options.readDenied ?? (() => false),
    async resolveInside(path) {
      if (typeof path !== 'string' || path.length === 0) {
        throw new ToolRefusal('The path is empty. Give an absolute path or one relative to the working directory.');
      }
      if (path.includes('\0')) throw new ToolRefusal('The path contains a NUL character, which no file name can hold.');
      const abs = absolute(path);
      const real = await kernelResolve(path, abs).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENAMETOOLONG' || error.code === 'ELOOP' || error.code === 'EACCES') {
          throw new ToolRefusal(`Cannot resolve ${abs.length > 200 ? `${abs.slice(0, 200)}…` : abs}: ${error.code}.`);
        }
        throw error;
      });
      if (!contains(real)) {
        const where = real === abs ? abs : `${abs} (which resolves to ${real})`;
        throw new ToolRefusal(
          `Access denied: ${where} is outside the workspace (${roots.join(', ')}). ` +
            'Only files inside the workspace can be used; work with a path inside it instead.',
        );
      }
      return real;
    },
    async openInside(realPath, flags) {
      const mode =
        flags === 'read' ? constants.O_RDONLY : flags === 'write' ? constants.O_WRONLY : constants.O_WRONLY | constants.O_CREAT;
      // O_NONBLOCK: opening a FIFO would otherwise hang a thread-pool thread until a peer shows up
      // (no effect on regular files); anything but a file or directory is refused below.
      const handle = await open(realPath, mode | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ELOOP') throw new ToolRefusal(`${realPath} became a symbolic link after it was checked; refusing to follow it.`);
        if (error.code === 'ENXIO') throw new ToolRefusal(`${realPath} is a FIFO or socket, not a file.`);
        throw error;
      });
      const st = await handle.stat();
      if (!st.isFile() && !st.isDirectory()) {
        await handle.close();
        throw new ToolRefusal(`${realPath} is not a regular file (a device, FIFO or socket); only regular files can be used.`);
      }
      const actual = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => realPath);
      if (!contains(actual)) {
        await handle.close();
        throw new ToolRefusal(`Access denied: ${realPath} now resolves to ${actual}, outside the workspace (it changed after the check).`);
      }
      return handle;
    },
    recordRead(realPath, st) {
      readFiles.set(realPath, { mtimeMs: st.mtimeMs, size: st.size, readAt: Date.now() });
    },
    beforeWrite: options.beforeWrite ?? (() => Promise.resolve()),
    async assertFresh(realPath, verb) {
      const record = readFiles.get(realPath);
      if (!record) {
        throw new ToolRefusal(
          `Refusing to ${verb} ${realPath}: it has not been read in this session. Read it with the Read tool first, then retry.`,
        );
      }
      const st = await stat(realPath);
      if (st.mtimeMs !== record.mtimeMs || st.size !== record.size) {
        throw new ToolRefusal(
          `Refusing to ${verb} ${realPath}: it was modified on disk since it was last read. Read it again to see the current content, then retry.`,
        );
      }
    },
  };
}
