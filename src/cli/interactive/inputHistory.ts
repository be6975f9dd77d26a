/**
 * The prompt history of one project (Up/Down at the prompt), kept across runs in
 * `~/.rxagent/projects/<workspace-slug>/input-history.json` beside the sessions (not `.jsonl`:
 * that directory's `.jsonl` files are sessions). A JSON array, oldest first, at most
 * `MAX_HISTORY` entries. Each save re-reads the file first, so two runs in the same project
 * lose nothing but the order of entries made at the same moment; the write goes through a temp
 * file and a rename, so a crash never leaves half a file.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { workspaceSlug } from '../../session/paths.js';

export const MAX_HISTORY = 500;

export function historyFile(homeDir: string, cwd: string): string {
  return join(homeDir, '.rxagent', 'projects', workspaceSlug(cwd), 'input-history.json');
}

/** The saved entries, oldest first; [] when there is no file or it cannot be read as a list of strings. */
export function loadHistory(file: string): string[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(parsed) ? parsed.filter((e): e is string => typeof e === 'string').slice(-MAX_HISTORY) : [];
  } catch {
    return [];
  }
}

/** Adds one entry (unless it repeats the newest) and writes the file. Failures are returned, not thrown: history is a convenience. */
export function appendHistory(file: string, entry: string): string | undefined {
  try {
    const entries = loadHistory(file);
    if (entries[entries.length - 1] !== entry) entries.push(entry);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(entries.slice(-MAX_HISTORY)), { mode: 0o600 });
    renameSync(temp, file);
    return undefined;
  } catch (error) {
    return `could not save the prompt history (${(error as Error).message})`;
  }
}
