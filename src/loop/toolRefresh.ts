/**
 * The tool-refresh seam (SPEC §2 step 8 "refresh the tool set"): the tools of one iteration,
 * asked for once before its first request, so a change (an MCP server's list_changed) reaches
 * the next iteration and never a request already sent. A promise or an Observable (its first
 * value) is waited for. The seam gets `tools` (as whoever built
 * the options set them, e.g. with the agent tree's `Agent` tool) and answers the full list. An answer still being prepared (a
 * server re-listing its tools) is waited for; a failed one keeps `tools`.
 */
import { catchError, from, isObservable, of, take, type Observable } from 'rxjs';
import type { Tool } from '../tools/types.js';
import type { AgentLoopOptions } from './options.js';

export function toolsOfIteration(options: Pick<AgentLoopOptions, 'tools' | 'refreshTools'>): Observable<readonly Tool[]> {
  const fallback = options.tools ?? [];
  if (!options.refreshTools) return of(fallback);
  let fresh: ReturnType<NonNullable<AgentLoopOptions['refreshTools']>>;
  try {
    fresh = options.refreshTools(fallback);
  } catch {
    return of(fallback);
  }
  if (isObservable(fresh)) return fresh.pipe(take(1), catchError(() => of(fallback)));
  if (isPromiseLike(fresh)) return from(fresh).pipe(catchError(() => of(fallback)));
  return of(fresh);
}

function isPromiseLike<T>(value: unknown): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
