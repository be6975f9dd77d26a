/**
 * Synchronous opens for the walks of Glob and Grep that check what they opened, not what a path
 * named a moment earlier: a file or directory swapped for a symlink, a FIFO or a device between
 * the listing and the open is refused instead of followed (a leak) or waited on (a freeze).
 *
 * - `O_NOFOLLOW`: the last component is never followed (ELOOP if it became a link).
 * - `O_NONBLOCK`: opening a FIFO returns at once instead of waiting for a writer forever; the
 *   flag changes nothing for the regular files and directories that are kept.
 * - `fstat` of the descriptor decides the kind; `/proc/self/fd/<fd>` says where it really is, so a
 *   parent directory swapped for a link to outside is caught too (where `/proc` exists).
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync } from 'node:fs';

/** Why a path was not opened. `missing` also covers unreadable (EACCES) and vanished entries. */
export type OpenRefusal = 'missing' | 'symlink' | 'not-regular' | 'not-directory' | 'outside';

export type Opened = { readonly fd: number } | { readonly refused: OpenRefusal };

const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
// O_DIRECTORY makes the open itself fail on anything but a directory (ENOTDIR), FIFOs included.
const DIR_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (constants.O_DIRECTORY ?? 0);

let procFdWorks: boolean | undefined;

/** Where an open descriptor really is; undefined when the platform cannot tell (no /proc). */
export function realPathOfFd(fd: number): string | undefined {
  if (procFdWorks === false) return undefined;
  try {
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    procFdWorks = true;
    return real;
  } catch {
    procFdWorks ??= false;
    return undefined;
  }
}

/** Opens a regular file for reading, or says why not. Never blocks on a FIFO. */
export function openRegularFileSync(path: string, allowPath: (realPath: string) => boolean): Opened {
  return openChecked(path, FILE_FLAGS, allowPath, 'file');
}

/** Opens a directory for listing (`/proc/self/fd/<fd>` lists it), or says why not. */
export function openDirectorySync(path: string, allowPath: (realPath: string) => boolean): Opened {
  return openChecked(path, DIR_FLAGS, allowPath, 'directory');
}

function openChecked(path: string, flags: number, allowPath: (realPath: string) => boolean, want: 'file' | 'directory'): Opened {
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { refused: 'symlink' };
    if (code === 'ENOTDIR') return { refused: want === 'directory' ? 'not-directory' : 'missing' };
    if (code === 'ENXIO') return { refused: 'not-regular' }; // a socket
    return { refused: 'missing' };
  }
  let keep = false;
  try {
    const st = fstatSync(fd);
    if (want === 'file' ? !st.isFile() : !st.isDirectory()) return { refused: want === 'file' ? 'not-regular' : 'not-directory' };
    const real = realPathOfFd(fd);
    if (real !== undefined && !allowPath(real)) return { refused: 'outside' };
    keep = true;
    return { fd };
  } catch {
    return { refused: 'missing' };
  } finally {
    if (!keep) closeSync(fd);
  }
}

/** The path that lists an open directory descriptor, or the path itself where `/proc` is missing. */
export function listingPathOf(fd: number, path: string): string {
  return realPathOfFd(fd) === undefined ? path : `/proc/self/fd/${fd}`;
}
