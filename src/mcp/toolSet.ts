/**
 * The MCP tools as the loop's tool-refresh seam sees them: given the loop's own tools, the tools
 * of the next iteration are those followed by the servers' latest. While a server re-lists its
 * changed tools the answer is a promise of the list after it, so the next request never carries
 * a list the server already replaced. The same array comes back while nothing changed, so the
 * loop's per-array tool index stays cached.
 */
import { map, Subject, take, type Observable } from 'rxjs';
import type { Tool } from '../tools/types.js';
import type { McpTools } from './connectMcpServers.js';

export interface McpToolSet {
  update(mcp: McpTools): void;
  /** The servers' tools now. */
  mcpTools(): readonly Tool[];
  /** `own` followed by the servers' tools (now). */
  withOwn(own: readonly Tool[]): readonly Tool[];
  /** For `refreshTools`: `withOwn(own)`, or once a re-listing is under way, that list after it. */
  refresh(own: readonly Tool[]): readonly Tool[] | Observable<readonly Tool[]>;
}

/** `offer`: which MCP tools to offer at all (e.g. not those a bare `--disallowedTools` name removes). */
export function createMcpToolSet(offer: (toolName: string) => boolean = () => true): McpToolSet {
  let listed: readonly Tool[] = [];
  let mcpTools: readonly Tool[] = [];
  let cache: { own: readonly Tool[]; mcp: readonly Tool[]; combined: readonly Tool[] } | undefined;
  let refreshing = false;
  const settled$ = new Subject<void>();
  const withOwn = (own: readonly Tool[]): readonly Tool[] => {
    if (mcpTools.length === 0) return own;
    if (cache?.own !== own || cache.mcp !== mcpTools) cache = { own, mcp: mcpTools, combined: [...own, ...mcpTools] };
    return cache.combined;
  };
  return {
    update: (mcp) => {
      if (mcp.tools !== listed) {
        listed = mcp.tools;
        mcpTools = mcp.tools.filter((t) => offer(t.name));
      }
      const wasRefreshing = refreshing;
      refreshing = mcp.refreshing;
      if (wasRefreshing && !refreshing) settled$.next();
    },
    mcpTools: () => mcpTools,
    withOwn,
    refresh: (own) =>
      refreshing
        ? settled$.pipe(
            take(1),
            map(() => withOwn(own)),
          )
        : withOwn(own),
  };
}
