/**
 * The folders inside a workspace root whose files decide what runs: git's config and hooks (a
 * `core.fsmonitor` line turns `git status` into any command), our settings (hooks) and Claude
 * Code's. The match is case-insensitive because case-insensitive file systems exist: on one,
 * `.GIT/config` is `.git/config`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const PROTECTED_DIR_NAMES: readonly string[] = ['.git', '.rxagent', '.claude'];

/** Whether one path segment names a protected folder, in any letter case. */
export function isProtectedSegment(segment: string): boolean {
  return PROTECTED_DIR_NAMES.includes(segment.toLowerCase());
}

/** The existing entries of `root` that name a protected folder (any case), as absolute paths. */
export function protectedEntriesOf(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names.filter(isProtectedSegment).map((name) => join(root, name));
}
