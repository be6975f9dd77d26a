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

/** What a root holds of the protected names: the entries there are, and the names none stands for. */
export interface ProtectedEntries {
  /** Existing entries naming a protected folder (any case), as absolute paths. */
  readonly existing: readonly string[];
  /** Absolute paths of the protected names (lower case) that no entry of the root stands for yet. */
  readonly missing: readonly string[];
}

/**
 * The protected entries of `root`. A root that cannot be listed reports nothing missing: a
 * placeholder could not be made there either, and bwrap fails on a root it cannot reach.
 */
export function protectedEntriesOf(root: string): ProtectedEntries {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return { existing: [], missing: [] };
  }
  const present = new Set(names.filter(isProtectedSegment).map((name) => name.toLowerCase()));
  return {
    existing: names.filter(isProtectedSegment).map((name) => join(root, name)),
    missing: PROTECTED_DIR_NAMES.filter((name) => !present.has(name)).map((name) => join(root, name)),
  };
}
