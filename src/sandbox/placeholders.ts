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
 * until a later check finds it gone. When rxagent exits with calls still running (a signal, a
 * closed stdout), it SIGKILLs each such call's init, waits (briefly, synchronously: nothing else
 * runs at exit) until the init is gone, and only then removes the placeholders. An empty
 * directory left behind (rxagent itself killed, or an init that would not go) is the safe failure.
 */
import { readFileSync, rmdirSync } from 'node:fs';

/** How one call ended, as far as its placeholders care. */
export interface CallEnd {
  /** bwrap exited with a code: it does so only after its init, and with it the whole namespace, is gone. */
  readonly exitedNormally: boolean;
}

/** One call's hold on its placeholders. */
export interface PlaceholderHold {
  /** Paths to mount an empty read-only tmpfs on (missing now, or ours and in use by another call). */
  readonly paths: readonly string[];
  release(ended: CallEnd): void;
}

interface Held {
  readonly paths: readonly string[];
  /** The host pid of the call's sandbox init (bwrap's `--info-fd`), once reported. */
  readonly init: () => number | undefined;
}

/**
 * The process `pid` has exited: gone, or a zombie. A zombie init is enough: the kernel makes a
 * PID namespace's init a zombie only after every other process of the namespace has been killed
 * and reaped (zap_pid_ns_processes), and zombies may stay unreaped for long where the host's pid 1
 * does not reap (containers without an init).
 */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false; // cannot tell: keep waiting (the safe side)
  }
}

export interface PlaceholderRegistry {
  /**
   * Sorts one call's protected entries: existing ones are bound read-only, except our own
   * placeholders, which get a placeholder mount again like the missing names.
   */
  plan(existing: readonly string[], missing: readonly string[]): { readonly bindReadOnly: readonly string[]; readonly placeholders: readonly string[] };
  /** Holds `paths` for a call that has just been spawned; `init` reads its sandbox's init pid. */
  take(paths: readonly string[], init?: () => number | undefined): PlaceholderHold;
  /** For process exit: ends the inits of calls still held, waits up to `boundMs` for them, removes what is safe. */
  shutdown(boundMs?: number): void;
  /** Paths this process made and has not removed yet (for tests and diagnostics). */
  outstanding(): readonly string[];
}

/** One registry per process: two runs (or `rxagent serve` sessions) on one workspace share placeholders. */
export function createPlaceholderRegistry(remove: (path: string) => void = removeIfEmptyDir): PlaceholderRegistry {
  const users = new Map<string, number>();
  /** Calls still running, and calls that ended without proof that their namespace is gone. */
  const running = new Set<Held>();
  const pending = new Set<Held>();

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
  const initGone = (held: Held) => {
    const init = held.init();
    return init !== undefined && processGone(init);
  };
  const settlePending = () => {
    for (const held of pending) {
      if (!initGone(held)) continue;
      pending.delete(held);
      drop(held.paths);
    }
  };

  return {
    plan(existing, missing) {
      settlePending();
      return { bindReadOnly: existing.filter((path) => !users.has(path)), placeholders: [...existing.filter((path) => users.has(path)), ...missing] };
    },
    take(paths, init = () => undefined) {
      for (const path of paths) users.set(path, (users.get(path) ?? 0) + 1);
      const held: Held = { paths, init };
      running.add(held);
      return {
        paths,
        release(ended) {
          if (!running.delete(held)) return; // once only
          if (ended.exitedNormally) drop(paths);
          else pending.add(held);
          settlePending();
        },
      };
    },
    shutdown(boundMs = 1000) {
      const waiting = [...running, ...pending].filter((held) => held.init() !== undefined);
      for (const held of waiting) {
        try {
          process.kill(held.init()!, 'SIGKILL'); // the namespace's init: everything in it dies with it
        } catch {
          // already gone
        }
      }
      const deadline = Date.now() + boundMs;
      const tick = new Int32Array(new SharedArrayBuffer(4));
      while (waiting.some((held) => !initGone(held)) && Date.now() < deadline) Atomics.wait(tick, 0, 0, 5);
      for (const held of waiting) {
        if (!initGone(held)) continue;
        running.delete(held);
        pending.delete(held);
        drop(held.paths);
      }
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
process.once('exit', () => placeholders.shutdown());
