/**
 * A working bwrap probe remembered on disk, so that a start on an unchanged machine spawns no
 * probe process (`spawn` blocks the start until bwrap has exec'd, 7–10 ms: issue 20 §3).
 *
 * Only a POSITIVE verdict is ever written. Why that is safe: a positive verdict only means that
 * commands are run through bwrap, and bwrap either confines a command or fails before it runs it
 * (it never falls back to running it unconfined). So a stale or forged entry can make commands
 * fail, never run outside the sandbox; and createSandbox drops the entry when a command fails
 * and a fresh probe says bwrap no longer works (`recheckRemembered` in bwrapProbe.ts), so the
 * next start probes and says "sandbox off" as before. A negative verdict is never kept: it is
 * probed at every start, so the warning and the init line's `sandbox` field are what they were.
 *
 * The entry is the exact text of everything that decides the probe's outcome here (`verdictKey`):
 * any change (bwrap or bash replaced, chmod, setcap, a reboot, the user-namespace sysctls, another
 * user, another container's namespaces, another seccomp or LSM confinement of rxagent itself)
 * gives another text, and the probe runs again. A file that cannot be read, is not ours, is
 * writable by others or holds anything else is ignored: the probe runs, silently.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, readlinkSync, readSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Bumped when the probe's command line or this key's contents change: old entries then never match. */
const KEY_VERSION = 1;
const FILE_NAME = 'bwrap-probe.json';
const MAX_BYTES = 64 * 1024;

/** Sysctls that turn unprivileged user namespaces off (whichever this kernel has). */
const USERNS_SYSCTLS = ['/proc/sys/kernel/unprivileged_userns_clone', '/proc/sys/user/max_user_namespaces', '/proc/sys/kernel/apparmor_restrict_unprivileged_userns'];
/** Lines of /proc/self/status that say how rxagent itself is confined (a seccomp filter, no_new_privs, capabilities). */
const STATUS_FIELDS = /^(Seccomp|Seccomp_filters|NoNewPrivs|CapEff|CapBnd|CapPrm):.*$/gm;

function fileId(path: string): Record<string, unknown> {
  const real = realpathSync(path);
  const s = statSync(real, { bigint: true });
  // ctime too: it moves on chmod, chown and setcap (file capabilities), which mtime does not.
  return { path, real, dev: String(s.dev), ino: String(s.ino), size: String(s.size), mode: String(s.mode), uid: String(s.uid), gid: String(s.gid), mtime: String(s.mtimeNs), ctime: String(s.ctimeNs) };
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function linkOrNull(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/**
 * The text a remembered verdict must equal, or undefined when it cannot be made (no boot id, a
 * file that cannot be looked at): then nothing is read or written.
 */
export function verdictKey(bwrap: string, bash: string): string | undefined {
  try {
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    if (bootId === '') return undefined;
    const status = readFileSync('/proc/self/status', 'utf8').match(STATUS_FIELDS) ?? [];
    return JSON.stringify({
      v: KEY_VERSION,
      bwrap: fileId(bwrap),
      bash: fileId(bash),
      bootId,
      sysctls: USERNS_SYSCTLS.map((path) => [path, readOrNull(path)?.trim() ?? null]),
      uid: process.getuid?.() ?? null,
      gid: process.getgid?.() ?? null,
      namespaces: ['user', 'mnt', 'pid', 'net', 'ipc', 'uts', 'cgroup'].map((ns) => linkOrNull(`/proc/self/ns/${ns}`)),
      status: status.map((line) => line.replace(/\s+/g, ' ')),
      lsm: readOrNull('/proc/self/attr/current')?.replace(/\0/g, '').trim() ?? null,
    });
  } catch {
    return undefined;
  }
}

/** Whether `dir` holds a positive verdict for exactly `key`, in a file only this user could have written. */
export function rememberedVerdict(dir: string, key: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(join(dir, FILE_NAME), constants.O_RDONLY | constants.O_NOFOLLOW);
    const s = fstatSync(fd);
    const uid = process.getuid?.();
    if (!s.isFile() || (uid !== undefined && s.uid !== uid) || (s.mode & 0o022) !== 0 || s.size > MAX_BYTES) return false;
    const buffer = Buffer.alloc(s.size);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    const entry: unknown = JSON.parse(buffer.toString('utf8', 0, read));
    return typeof entry === 'object' && entry !== null && (entry as { works?: unknown }).works === true && (entry as { key?: unknown }).key === key;
  } catch {
    return false; // none yet, unreadable, corrupt: probe
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Keeps a positive verdict for `key` (private to the user, whole or not at all); a failure only costs the next start a probe. */
export function rememberVerdict(dir: string, key: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, FILE_NAME);
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify({ works: true, key }), { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    // read-only home, full disk: the next start probes again
  }
}

/** Drops the remembered verdict, if any. */
export function forgetVerdict(dir: string): void {
  try {
    unlinkSync(join(dir, FILE_NAME));
  } catch {
    // none, or not ours to remove: it will not match a changed machine anyway
  }
}

/** The file's name in the cache directory (for tests and the README). */
export const VERDICT_FILE_NAME = FILE_NAME;
