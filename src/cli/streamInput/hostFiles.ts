/**
 * The host's file requests, answered through the file tools' own workspace so they obey what
 * Read obeys: `read_file` (the SDK's `query.readFile()`: a path inside the workspace's roots,
 * not covered by a Read deny or ask rule, at most `max_bytes`, as UTF-8 or base64) and
 * `seed_read_state` (`query.seedReadState()`: the host saw a Read that is no longer in the
 * context; the file counts as read if its mtime is still the one given, else nothing changes
 * and Edit asks for a fresh Read, as in Claude Code).
 */
import { stat } from 'node:fs/promises';
import type { Workspace } from '../../tools/builtin/workspace.js';

/** The SDK's default cap of a `readFile()` (1 MB). */
export const DEFAULT_READ_BYTES = 1 << 20;

export async function readFileForHost(workspace: Workspace, request: { path: string; maxBytes?: number; encoding?: 'utf-8' | 'base64' }): Promise<Record<string, unknown>> {
  const real = await workspace.resolveInside(request.path);
  if (workspace.isReadDenied('Read', request.path, real)) throw new Error(`${real}: a Read rule denies or asks for it`);
  const handle = await workspace.openInside(real, 'read');
  try {
    const st = await handle.stat();
    if (st.isDirectory()) throw new Error(`${real} is a directory`);
    const cap = Math.max(0, Math.min(request.maxBytes ?? DEFAULT_READ_BYTES, st.size));
    const buffer = Buffer.alloc(cap);
    const { bytesRead } = cap === 0 ? { bytesRead: 0 } : await handle.read(buffer, 0, cap, 0);
    const bytes = buffer.subarray(0, bytesRead);
    const truncated = st.size > bytesRead;
    if (request.encoding === 'base64') return { contents: bytes.toString('base64'), absPath: real, encoding: 'base64', ...(truncated ? { truncated } : {}) };
    let lossy = false;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      lossy = true;
    }
    return { contents: bytes.toString('utf8'), absPath: real, lossy, ...(truncated ? { truncated } : {}) };
  } finally {
    await handle.close();
  }
}

/** True when the file was seeded; false when it changed since `mtime` (floored ms) and nothing was recorded. */
export async function seedReadState(workspace: Workspace, path: string, mtime: number): Promise<boolean> {
  const real = await workspace.resolveInside(path);
  const st = await stat(real);
  if (!st.isFile() || Math.floor(st.mtimeMs) !== Math.floor(mtime)) return false;
  workspace.recordRead(real, st);
  return true;
}
