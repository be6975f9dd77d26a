/**
 * A set of MCP servers that changes while it runs (the Agent SDK's `mcp_set_servers` and
 * `mcp_toggle`), and the pure step from one set to the next: a server new to the set, or whose
 * entry changed, is started; one that left the set, or whose entry changed, is stopped; the
 * others keep their connection. `connectServerSet` (connectMcpServers.ts) acts on it.
 */
import type { McpServerConfig } from './config.js';
import type { McpServerStatusName } from './connectServer.js';

/** What one server of the set is: started from its configuration, or listed with a state and never started. */
export type ServerEntry =
  | { readonly kind: 'start'; readonly config: McpServerConfig }
  | { readonly kind: 'held'; readonly status: McpServerStatusName; readonly reason: string };

export type ServerSet = Readonly<Record<string, ServerEntry>>;

/** Whether a server's entry asks for the same thing as before (then its connection is kept). */
export function sameEntry(a: ServerEntry, b: ServerEntry): boolean {
  if (a.kind === 'start') return b.kind === 'start' && a.config === b.config;
  return b.kind === 'held' && a.status === b.status && a.reason === b.reason;
}

/** The pure step: which servers to stop and which to start, going from `running` to `next`. */
export function planServerSet(running: ReadonlyMap<string, ServerEntry>, next: ServerSet): { readonly stop: string[]; readonly start: string[] } {
  const stop = [...running].filter(([name, entry]) => next[name] === undefined || !sameEntry(entry, next[name])).map(([name]) => name);
  const start = Object.entries(next)
    .filter(([name]) => !running.has(name) || stop.includes(name))
    .map(([name]) => name);
  return { stop, start };
}

