/** Where sessions live on disk, and which session ids are safe as file names. */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { InvalidSessionIdError } from './errors.js';

/**
 * The folder name of a workspace's sessions: the absolute path with every non-alphanumeric
 * character replaced by '-' (as Claude Code names its project folders). That alone is lossy:
 * `/a-b` and `/a/b` would share one folder, and each could resume or lock the other's sessions.
 * So unless the path holds nothing but letters, digits and '/', where the replacement can be
 * undone, `_` and 16 hex digits of the path's SHA-256 follow; a plain slug never contains `_`.
 */
export function workspaceSlug(workspace: string): string {
  const absolute = resolve(workspace);
  const slug = absolute.replace(/[^a-zA-Z0-9]/g, '-');
  if (/^[a-zA-Z0-9/]*$/.test(absolute)) return slug;
  return `${slug}_${createHash('sha256').update(absolute).digest('hex').slice(0, 16)}`;
}

/** `~/.rxagent/projects/<workspace-slug>` */
export function defaultSessionDir(workspace: string): string {
  return join(homedir(), '.rxagent', 'projects', workspaceSlug(workspace));
}

const SESSION_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

export function assertValidSessionId(sessionId: string): void {
  if (!SESSION_ID.test(sessionId)) throw new InvalidSessionIdError(sessionId);
}
