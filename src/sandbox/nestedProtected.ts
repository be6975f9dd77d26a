/**
 * Protected folders below the top of a root: a nested repository's `sub/.git` (a directory, or
 * the `.git` file of a worktree or submodule), a subproject's `.claude` or `.rxagent`. Their
 * config and hooks run on the user's next git command there just as the top-level ones do, so
 * each call binds them read-only too (bwrap.ts).
 *
 * The walk is bounded by entries, not by time, so its result does not depend on the load: one
 * `readdir` per directory (withFileTypes, so no stat per entry), symlinks never followed (a
 * Dirent of a link is not a directory), and never into a protected folder itself (its contents
 * are covered by its own mount). It is not cached: a cache stays correct only if every
 * directory is re-checked for change, which is a syscall per directory again, and a nested
 * repository the last call made must be protected in the next one.
 *
 * Not covered: a nested repository the command itself creates is writable during that call
 * (making one, `git init sub`, is what the mode allows); the next call binds it read-only. A
 * symlink named `.git` whose target does not exist is skipped (bwrap could not mount on it).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isProtectedSegment } from './protectedDirs.js';

/** Directory entries the walk reads per root before it stops; 20k files took 17-28 ms here, so the bound is some 0.2-0.3 s. */
export const NESTED_WALK_MAX_ENTRIES = 200_000;

export interface NestedProtected {
  /** Existing protected entries below the top level, as absolute paths. */
  readonly found: readonly string[];
  /** True when the bound stopped the walk: folders past it were not looked at. */
  readonly truncated: boolean;
}

/** The protected entries below `root`'s top level (the top level is protectedDirs.ts's job). */
export function nestedProtectedOf(root: string, maxEntries = NESTED_WALK_MAX_ENTRIES): NestedProtected {
  const found: string[] = [];
  let seen = 0;
  // Breadth first: near folders, the likelier ones, come before the bound does.
  let level = childDirs(root);
  while (level.length > 0) {
    const next: string[] = [];
    for (const dir of level) {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue; // unreadable: the command cannot write there either
      }
      seen += entries.length;
      if (seen > maxEntries) return { found, truncated: true };
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (isProtectedSegment(entry.name)) {
          if (entry.isDirectory() || entry.isFile() || (entry.isSymbolicLink() && exists(path))) found.push(path);
        } else if (entry.isDirectory()) next.push(path);
      }
    }
    level = next;
  }
  return { found, truncated: false };
}

/** The root's subdirectories, protected ones left out (bound at the top already). */
function childDirs(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !isProtectedSegment(entry.name))
      .map((entry) => join(root, entry.name));
  } catch {
    return [];
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
