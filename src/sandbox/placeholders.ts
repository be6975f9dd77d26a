/**
 * Mount points for protected folders that do not exist yet.
 *
 * bwrap can only mount over a path that exists, so a writable root without `.git` (or `.claude`,
 * `.rxagent`) would let a sandboxed command create one: `.git/config` with `core.fsmonitor`, or
 * `.git/hooks`, runs on the user's next git command (an editor runs `git status` constantly), and
 * `.claude/settings.local.json` can approve project MCP servers that start unsandboxed next time.
 * So for each missing name bwrap makes an empty directory on the host and mounts an empty
 * read-only tmpfs over it inside the sandbox: creating, renaming or removing it fails there
 * (EROFS, EBUSY). git ignores an empty `.git` directory (it keeps looking in the parents), so the
 * placeholder changes nothing for the user while it exists.
 *
 * It is removed (only while still an empty directory) once no call of this process uses it AND
 * the call's PID namespace is gone. The order matters: removing a mount point from the host
 * detaches the mount in every other namespace, so removing it while a process of the call still
 * runs would let that process create the folder after all. A call whose namespace cannot be shown
 * gone (it was killed and its init still exists, or bwrap never reported it) keeps its placeholders
 * until a later check finds it gone; an empty directory left behind is the safe failure.
 */
import { rmdirSync } from 'node:fs';

/** One call's hold on its placeholders. */
export interface PlaceholderHold {
  /** Paths to mount an empty read-only tmpfs on (missing now, or ours and in use by another call). */
  readonly paths: readonly string[];
  /**
   * The call's processes may be gone: `init` is the host pid of the sandbox's init (bwrap's
   * `--info-fd`), `exitedNormally` whether bwrap exited with a code (it does so only after its init
   * and with it the whole namespace are gone).
   */
  release(ended: { readonly exitedNormally: boolean; readonly init?: number }): void;
}

interface Pending {
  readonly paths: readonly string[];
  readonly gone: () => boolean;
}

/** Host pid `pid` no longer exists (a zombie still counts as existing: its namespace may still be dying). */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export interface PlaceholderRegistry {
  /**
   * Sorts one call's protected entries: existing ones are bound read-only, except our own
   * placeholders, which get a placeholder mount again like the missing names.
   */
  plan(existing: readonly string[], missing: readonly string[]): { readonly bindReadOnly: readonly string[]; readonly placeholders: readonly string[] };
  /** Holds `paths` for a call that has just been spawned (nothing is held for a plan never run). */
  take(paths: readonly string[]): PlaceholderHold;
  /** Paths this process made and has not removed yet (for tests and diagnostics). */
  outstanding(): readonly string[];
}

/** One registry per process: two runs (or `rxagent serve` sessions) on one workspace share placeholders. */
export function createPlaceholderRegistry(remove: (path: string) => void = removeIfEmptyDir): PlaceholderRegistry {
  const users = new Map<string, number>();
  const pending: Pending[] = [];

  const drop = (paths: readonly string[]) => {
    for (const path of paths) {
      const left = (users.get(path) ?? 1) - 1;
      if (left > 0) users.set(path, left);
      else {
        users.delete(path);
        remove(path);
      }
    }
  };
  const settlePending = () => {
    for (let i = pending.length - 1; i >= 0; i--) {
      const entry = pending[i]!;
      if (!entry.gone()) continue;
      pending.splice(i, 1);
      drop(entry.paths);
    }
  };

  return {
    plan(existing, missing) {
      settlePending();
      return { bindReadOnly: existing.filter((path) => !users.has(path)), placeholders: [...existing.filter((path) => users.has(path)), ...missing] };
    },
    take(paths) {
      for (const path of paths) users.set(path, (users.get(path) ?? 0) + 1);
      let released = false;
      return {
        paths,
        release(ended) {
          if (released) return;
          released = true;
          const init = ended.init;
          if (ended.exitedNormally) drop(paths);
          else if (init !== undefined) pending.push({ paths, gone: () => processGone(init) });
          // else: nothing shows the namespace gone; the placeholders stay (an empty directory).
          settlePending();
        },
      };
    },
    outstanding: () => [...users.keys()],
  };
}

/** rmdir only removes an empty directory: anything the user put there (or a file, a link) stays. */
function removeIfEmptyDir(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    // not empty, not a directory, or already gone: leave it
  }
}

export const placeholders = createPlaceholderRegistry();
