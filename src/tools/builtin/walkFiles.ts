/**
 * Depth-first walk of a directory tree for Glob and Grep.
 *
 * Symlinked directories are not descended (no cycles, no escape from the workspace); a symlinked
 * file is reported only when its target lies inside the workspace. `.git` and `node_modules` are
 * skipped unless the caller asks for them.
 *
 * Each directory is listed through a descriptor opened with O_NOFOLLOW and checked to lie inside
 * the roots (see openVerified.ts), not by its path: a directory swapped for a symlink to outside
 * between being listed in its parent and being listed itself is refused, not followed.
 */
import type { Dirent } from 'node:fs';
import { closeSync, readdirSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { listingPathOf, openDirectorySync } from './openVerified.js';

const WALK_SLICE_MS = 10;

export const DEFAULT_SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

export interface WalkOptions {
  /** Directory names never entered. */
  readonly skipDirs?: ReadonlySet<string>;
  /** Whether a real path may be reported (the workspace's `contains`). */
  readonly allowPath: (realPath: string) => boolean;
  /** Prune: called with the path relative to the walk root (`/`-separated) of each directory. */
  readonly enterDir?: (relDir: string) => boolean;
  readonly signal?: AbortSignal;
}

export interface WalkedFile {
  /** Absolute path as reached through the walk. */
  readonly path: string;
  /** Relative to the walk root, `/`-separated. */
  readonly rel: string;
  /** For a symlink: the checked real target. Read this, not `path`, so a link retargeted after the check is not followed. */
  readonly real?: string;
}

export async function* walkFiles(root: string, options: WalkOptions): AsyncGenerator<WalkedFile> {
  for await (const batch of walkFileBatches(root, options)) yield* batch;
}

/** The same walk, one directory's files at a time: a tree of many small files pays one await per directory, not per file. */
export async function* walkFileBatches(root: string, options: WalkOptions): AsyncGenerator<WalkedFile[]> {
  const skip = options.skipDirs ?? DEFAULT_SKIPPED_DIRS;
  const stack: Array<{ dir: string; rel: string }> = [{ dir: root, rel: '' }];
  let sliceStart = performance.now();
  while (stack.length > 0) {
    if (options.signal?.aborted) return;
    // Listings are synchronous: give the event loop a turn every few ms on a big tree.
    // This is a yield point, not a delay.
    if (performance.now() - sliceStart > WALK_SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    const { dir, rel } = stack.pop()!;
    let entries: Dirent[];
    // Gone, unreadable, swapped for a link or now outside: skip it, as grep -r skips what it
    // cannot read (with a warning we do not need).
    const opened = openDirectorySync(dir, options.allowPath);
    if ('refused' in opened) continue;
    try {
      // Synchronous on purpose: one directory listing is microseconds, a thread-pool round trip
      // per directory dominated big walks. Consumers yield to the event loop between batches.
      entries = readdirSync(listingPathOf(opened.fd, dir), { withFileTypes: true });
    } catch {
      continue;
    } finally {
      closeSync(opened.fd);
    }
    // Name order keeps the output deterministic across file systems.
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: Array<{ dir: string; rel: string }> = [];
    const files: WalkedFile[] = [];
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (skip.has(entry.name)) continue;
        if (options.enterDir && !options.enterDir(childRel)) continue;
        subdirs.push({ dir: path, rel: childRel });
      } else if (entry.isFile()) {
        files.push({ path, rel: childRel });
      } else if (entry.isSymbolicLink()) {
        const target = await realpath(path).catch(() => undefined);
        if (target === undefined || !options.allowPath(target)) continue;
        const st = await stat(target).catch(() => undefined);
        if (st?.isFile()) files.push({ path, rel: childRel, real: target });
      }
    }
    if (files.length > 0) yield files;
    // Pushed in reverse so they are popped (visited) in name order, after this directory's files.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
}
