/** Edit: exact string replacement in a file that was Read in this session and is unchanged since. */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { EDIT_INPUT_JSON_SCHEMA } from '../builtinInputJsonSchemas.js';
import { withPrecomputedJsonSchema } from '../precomputedJsonSchema.js';
import type { ToolSpec } from '../types.js';
import { writeFileAtomic } from './atomicWrite.js';
import { filePatch, type PatchHunk } from './filePatch.js';
import { ToolRefusal, type Workspace } from './workspace.js';

export const editInputSchema = withPrecomputedJsonSchema(
  z.strictObject({
    get file_path() {
      return z.string().describe('Path of the file to edit (absolute, or relative to the working directory).');
    },
    get old_string() {
      return z.string().describe('The exact text to replace; it must occur exactly once unless replace_all is true.');
    },
    get new_string() {
      return z.string().describe('The replacement text; must differ from old_string.');
    },
    get replace_all() {
      return z.boolean().optional().describe('Replace every occurrence of old_string (default false).');
    },
  }),
  EDIT_INPUT_JSON_SCHEMA,
);
export type EditInput = z.infer<typeof editInputSchema>;

/** Edit's structured result, in Claude Code's shape (the SDK's `FileEditOutput`). */
export interface EditResult {
  readonly filePath: string;
  readonly oldString: string;
  readonly newString: string;
  readonly originalFile: string;
  readonly structuredPatch: PatchHunk[];
  readonly userModified: boolean;
  readonly replaceAll: boolean;
}

/** Lines of context shown around the change in the result. */
const SNIPPET_CONTEXT = 3;
const SNIPPET_MAX_LINES = 40;

/**
 * The Edit tool's spec: exact-text replacement in a file read (and unchanged) since, so edits never
 * apply to stale text.
 */
export function editTool(workspace: Workspace): ToolSpec<EditInput, string> {
  return {
    name: 'Edit',
    description:
      'Replaces exact text in a file of the workspace. old_string must match the file exactly (including ' +
      'indentation) and occur once, or pass replace_all. The file must have been read with Read in this ' +
      'session and not changed since. Returns the changed region with line numbers.',
    inputSchema: editInputSchema,
    isConcurrencySafe: false,
    async call(input) {
      const path = await workspace.resolveInside(input.file_path);
      if (input.old_string === input.new_string) {
        throw new ToolRefusal('old_string and new_string are identical, so there is nothing to change. Give the text as it should become in new_string.');
      }
      if (input.old_string === '') {
        throw new ToolRefusal('old_string is empty. Quote the exact text to replace, or use Write to create a file.');
      }
      const st = await stat(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') {
          throw new ToolRefusal(`File does not exist: ${path}. Use Write to create it, or check the path with Glob.`);
        }
        throw error;
      });
      if (st.isDirectory()) throw new ToolRefusal(`${path} is a directory, not a file.`);
      await workspace.assertFresh(path, 'edit');
      const reader = await workspace.openInside(path, 'read');
      const before = await reader.readFile('utf8').finally(() => reader.close());
      const count = countOccurrences(before, input.old_string);
      if (count === 0) {
        throw new ToolRefusal(
          `old_string was not found in ${path}. It must match exactly, including whitespace and indentation; Read the file again and copy the text.`,
        );
      }
      if (count > 1 && !input.replace_all) {
        throw new ToolRefusal(
          `old_string occurs ${count} times in ${path}. Add surrounding lines to make it unique, or set replace_all to true to change every occurrence.`,
        );
      }
      const firstIndex = before.indexOf(input.old_string);
      const after = input.replace_all
        ? before.split(input.old_string).join(input.new_string)
        : before.slice(0, firstIndex) + input.new_string + before.slice(firstIndex + input.old_string.length);
      await workspace.beforeWrite?.(path);
      // Atomic: a full disk or a crash leaves the old file, never half of the new one.
      workspace.recordRead(path, await writeFileAtomic(path, after, { contains: workspace.contains }));
      const what = count > 1 ? `Replaced ${count} occurrences in ${path}.` : `Edited ${path}.`;
      const structured: EditResult = {
        filePath: path,
        oldString: input.old_string,
        newString: input.new_string,
        originalFile: before,
        structuredPatch: filePatch(before, after),
        userModified: false,
        replaceAll: input.replace_all === true,
      };
      return { type: 'outcome', output: `${what}\n${snippet(after, firstIndex, input.new_string)}`, structured };
    },
  };
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** The first changed region with a few lines around it, numbered like Read's output. */
function snippet(after: string, changeIndex: number, inserted: string): string {
  const lines = after.split('\n');
  const firstLine = after.slice(0, changeIndex).split('\n').length; // 1-based
  const lastLine = firstLine + inserted.split('\n').length - 1;
  const from = Math.max(1, firstLine - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, lastLine + SNIPPET_CONTEXT, from + SNIPPET_MAX_LINES - 1);
  const shown: string[] = [];
  for (let n = from; n <= to; n++) shown.push(`${n}\t${lines[n - 1] ?? ''}`);
  return shown.join('\n');
}
