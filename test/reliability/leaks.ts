/**
 * Leak checks for tests: what the process holds (timers, sockets, servers, child processes) before
 * and after a run, compared by kind through `process.getActiveResourcesInfo()`, plus child
 * processes read from /proc and the server-side view of each connection.
 *
 * Resources are compared as counts per kind, so the caller takes the `before` snapshot at a point
 * where the same long-lived things exist (vitest's own handles, a shared server's listening
 * socket) and states what may legitimately differ (`allow`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { RecordedRequest } from '../../src/testing/script.js';

export type ResourceCounts = ReadonlyMap<string, number>;

/** Counts of the active resources by kind ('Timeout', 'TCPSocketWrap', 'ProcessWrap', ...). */
export function activeResources(): ResourceCounts {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** Pids of this process's live children (Linux: /proc; elsewhere an empty list). */
export function childPids(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const own = process.pid;
  const children: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the parenthesized command: state, ppid, ...
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[1]) === own && rest[0] !== 'Z') children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}

export interface Snapshot {
  readonly resources: ResourceCounts;
  readonly children: readonly number[];
}

export function snapshot(): Snapshot {
  return { resources: activeResources(), children: childPids() };
}

/** What grew between two snapshots, beyond `allow` per kind; empty when nothing leaked. */
export function grownResources(
  before: Snapshot,
  after: Snapshot,
  allow: Readonly<Record<string, number>> = {},
): string[] {
  const problems: string[] = [];
  for (const [kind, count] of after.resources) {
    const extra = count - (before.resources.get(kind) ?? 0) - (allow[kind] ?? 0);
    if (extra > 0) problems.push(`${extra} more ${kind}`);
  }
  const newChildren = after.children.filter((pid) => !before.children.includes(pid));
  if (newChildren.length > 0) problems.push(`child processes still running: ${newChildren.join(', ')}`);
  return problems;
}

/** Lets pending I/O callbacks (socket closes, process exits) run; uses no timer of its own. */
function settleOnce(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Waits (polling on setImmediate, up to `timeoutMs` of wall time) until nothing grew since
 * `before`; returns what is still there when it gives up. Closing sockets and exiting processes
 * take a few event-loop turns, so an immediate comparison would report them falsely.
 */
export async function waitForNoLeaks(
  before: Snapshot,
  options: { readonly allow?: Readonly<Record<string, number>>; readonly timeoutMs?: number } = {},
): Promise<string[]> {
  const deadline = performance.now() + (options.timeoutMs ?? 5000);
  for (;;) {
    await settleOnce();
    const problems = grownResources(before, snapshot(), options.allow);
    if (problems.length === 0 || performance.now() > deadline) return problems;
  }
}

/**
 * The server's side: every response finished or closed. Returns the indexes of requests whose
 * connection is still open after up to `timeoutMs` (a client that forgot to abort a stalled
 * response shows up here).
 */
export async function waitForResponsesEnded(requests: readonly RecordedRequest[], timeoutMs = 5000): Promise<number[]> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const open = requests.filter((r) => r.endedAt === undefined).map((r) => r.index);
    if (open.length === 0 || performance.now() > deadline) return open;
    await settleOnce();
  }
}
