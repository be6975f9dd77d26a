/** Where sessions live on disk, and which session ids are safe as file names. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { InvalidSessionIdError } from './errors.js';

/** The absolute workspace path with every non-alphanumeric character replaced by '-'. */
export function workspaceSlug(workspace: string): string {
  return resolve(workspace).replace(/[^a-zA-Z0-9]/g, '-');
}

/** `~/.rxagent/projects/<workspace-slug>` */
export function defaultSessionDir(workspace: string): string {
  return join(homedir(), '.rxagent', 'projects', workspaceSlug(workspace));
}

const SESSION_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

export function assertValidSessionId(sessionId: string): void {
  if (!SESSION_ID.test(sessionId)) throw new InvalidSessionIdError(sessionId);
}
