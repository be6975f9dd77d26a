/**
 * The per-session writer lock: `<sessionId>.lock` next to the transcript, holding the owner's pid,
 * its start time and when the lock was taken. Created with `wx` (exclusive), so of two writers
 * exactly one gets it. A lock whose pid is no longer alive (`kill(pid, 0)` → ESRCH), or is alive but
 * started at another time than the writer did (the pid was reused), is stale and is taken over.
 *
 * Take-over is careful about races between two recovering processes: the stale file is first
 * renamed aside (atomic) and checked to be the very lock judged stale; if a live lock was moved by
 * mistake it is linked back (link fails rather than overwrite a newer lock).
 */
import { promises as fs, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { SessionLockedError, type LockHolder } from './errors.js';

/** An unreadable lock younger than this is assumed to be mid-creation by a live writer. */
const UNREADABLE_LOCK_GRACE_MS = 5_000;
const MAX_ATTEMPTS = 5;

export interface HeldLock {
  readonly path: string;
  release(): Promise<void>;
}

/** Two start times closer than this are the same process (the kernel's clock ticks are 10 ms). */
const SAME_START_TOLERANCE_MS = 1_000;
/** USER_HZ: the unit of /proc/<pid>/stat's start time, 100 on every Linux architecture. */
const CLOCK_TICKS_PER_SECOND = 100;

let bootTimeMs: number | undefined | null = null;

/**
 * When process `pid` started (ms since the epoch) as the kernel records it, or undefined where
 * there is no /proc (macOS, Windows) or no such process. Read the same way for the lock's writer
 * and for whoever holds that pid now, so equal values mean the same process.
 */
export function processStartTime(pid: number): number | undefined {
  try {
    if (bootTimeMs === null) {
      const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
      bootTimeMs = btime ? Number(btime[1]) * 1000 : undefined;
    }
    if (bootTimeMs === undefined) return undefined;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces and parentheses): state is field 3,
    // starttime field 22.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(ticks) ? bootTimeMs + Math.round((ticks * 1000) / CLOCK_TICKS_PER_SECOND) : undefined;
  } catch {
    return undefined;
  }
}

/** When this process started, so a lock names its owner even across pid reuse. */
const processStartedAt = processStartTime(process.pid) ?? Math.round(Date.now() - process.uptime() * 1000);

export async function acquireLock(lockPath: string, sessionId: string): Promise<HeldLock> {
  const content = JSON.stringify({ pid: process.pid, processStartedAt, lockedAt: Date.now() } satisfies LockHolder);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    try {
      await fs.writeFile(lockPath, content, { flag: 'wx', mode: 0o600 });
      return heldLock(lockPath, content);
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
    }
    const existing = await readLock(lockPath);
    if (existing === 'gone') continue; // released between our attempt and the read: try again
    if (!isStale(existing)) throw new SessionLockedError(sessionId, lockPath, existing.holder);
    await takeOverStale(lockPath, existing.raw);
  }
  const last = await readLock(lockPath);
  throw new SessionLockedError(sessionId, lockPath, last === 'gone' ? undefined : last.holder);
}

/** Reads a lock file without taking it (for `list()` and diagnostics). */
export async function readLockHolder(lockPath: string): Promise<LockHolder | undefined> {
  const existing = await readLock(lockPath);
  return existing === 'gone' ? undefined : existing.holder;
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else — alive.
    return codeOf(error) !== 'ESRCH';
  }
}

interface ExistingLock {
  readonly raw: string;
  readonly holder: LockHolder | undefined;
  readonly ageMs: number;
}

async function readLock(lockPath: string): Promise<ExistingLock | 'gone'> {
  try {
    const [raw, stat] = await Promise.all([fs.readFile(lockPath, 'utf8'), fs.stat(lockPath)]);
    return { raw, holder: parseHolder(raw), ageMs: Date.now() - stat.mtimeMs };
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return 'gone';
    throw error;
  }
}

function isStale(existing: ExistingLock): boolean {
  if (existing.holder === undefined) return existing.ageMs > UNREADABLE_LOCK_GRACE_MS;
  const { pid, processStartedAt: recorded } = existing.holder;
  if (!isProcessAlive(pid)) return true;
  // The pid is alive, but is it still the writer? After a crash and a reboot or a busy night the
  // pid can belong to an unrelated process: a different start time says the writer is gone.
  const startedNow = processStartTime(pid);
  return startedNow !== undefined && recorded > 0 && Math.abs(startedNow - recorded) > SAME_START_TOLERANCE_MS;
}

async function takeOverStale(lockPath: string, staleRaw: string): Promise<void> {
  const aside = `${lockPath}.stale-${process.pid}-${randomUUID()}`;
  try {
    await fs.rename(lockPath, aside);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return; // someone else removed it first
    throw error;
  }
  const moved = await fs.readFile(aside, 'utf8').catch(() => staleRaw);
  if (moved !== staleRaw) {
    // Another process replaced the stale lock with its own live one in between: put it back.
    await fs.link(aside, lockPath).catch(() => undefined);
  }
  await fs.unlink(aside).catch(() => undefined);
}

function heldLock(lockPath: string, content: string): HeldLock {
  let released = false;
  return {
    path: lockPath,
    async release() {
      if (released) return;
      released = true;
      // Only remove the lock if it is still ours: someone may have deleted it by hand and
      // another writer taken the session since.
      const current = await fs.readFile(lockPath, 'utf8').catch(() => undefined);
      if (current === content) await fs.unlink(lockPath).catch(() => undefined);
    },
  };
}

function parseHolder(raw: string): LockHolder | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, processStartedAt: started, lockedAt } = value as Record<string, unknown>;
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
    return {
      pid,
      processStartedAt: typeof started === 'number' ? started : 0,
      lockedAt: typeof lockedAt === 'number' ? lockedAt : 0,
    };
  } catch {
    return undefined;
  }
}

export function codeOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : undefined;
}
