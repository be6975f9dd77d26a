/**
 * The change an Edit or Write call would make, as unified diff lines (`@@`, ` `, `-`, `+`), for
 * the permission question and the finish line. The file is read (inside the working directory
 * only, regular files up to 1 MiB) so the diff has its real context and line numbers; otherwise
 * the old and new text of the call are compared by themselves. Uses jsdiff (`diff`), a
 * well-kept line-diff library: a hand-written diff would be slower and wrong on repeated lines.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { structuredPatch } from 'diff';

export interface DiffLine {
  readonly kind: 'hunk' | 'context' | 'removed' | 'added';
  readonly text: string;
}

const MAX_READ_BYTES = 1 << 20;

function readInside(cwd: string, path: string): string | undefined {
  const absolute = resolve(cwd, path);
  const rel = relative(cwd, absolute);
  if (rel.startsWith('..') || isAbsolute(rel)) return undefined;
  try {
    const st = lstatSync(absolute);
    if (!st.isFile() || st.size > MAX_READ_BYTES) return undefined;
    return readFileSync(absolute, 'utf8');
  } catch {
    return undefined;
  }
}

function patchLines(oldText: string, newText: string, context: number): DiffLine[] {
  const patch = structuredPatch('a', 'b', oldText, newText, '', '', { context });
  const out: DiffLine[] = [];
  for (const hunk of patch.hunks) {
    // Unified diff numbers an empty side by the line before it (`-0,0` for a new file).
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    out.push({ kind: 'hunk', text: `@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@` });
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue;
      const kind = line[0] === '-' ? 'removed' : line[0] === '+' ? 'added' : 'context';
      out.push({ kind, text: line });
    }
  }
  return out;
}

/** The diff of an Edit/Write call, or [] for other tools and malformed input. */
export function callDiff(toolName: string, input: unknown, cwd: string): DiffLine[] {
  if (typeof input !== 'object' || input === null) return [];
  const rec = input as Record<string, unknown>;
  const path = typeof rec['file_path'] === 'string' ? rec['file_path'] : undefined;
  if (toolName === 'Write' && typeof rec['content'] === 'string') {
    const before = path === undefined ? '' : (readInside(cwd, path) ?? '');
    return patchLines(before, rec['content'], 3);
  }
  if (toolName !== 'Edit') return [];
  const oldString = rec['old_string'];
  const newString = rec['new_string'];
  if (typeof oldString !== 'string' || typeof newString !== 'string') return [];
  const before = path === undefined ? undefined : readInside(cwd, path);
  if (before !== undefined && oldString !== '' && before.includes(oldString)) {
    const after = rec['replace_all'] === true ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
    return patchLines(before, after, 3);
  }
  return patchLines(`${oldString}\n`, `${newString}\n`, 0);
}
