/** Write: create a file, or replace one that was Read in this session and is unchanged since. */
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { WRITE_INPUT_JSON_SCHEMA } from '../builtinInputJsonSchemas.js';
import { withPrecomputedJsonSchema } from '../precomputedJsonSchema.js';
import type { ToolSpec } from '../types.js';
import { writeFileAtomic } from './atomicWrite.js';
import { filePatch, type PatchHunk } from './filePatch.js';
import { ToolRefusal, type Workspace } from './workspace.js';

export const writeInputSchema = withPrecomputedJsonSchema(
  z.strictObject({
    get file_path() {
      return z.string().describe('Path of the file to write (absolute, or relative to the working directory).');
    },
    get content() {
      return z.string().describe('The complete new content of the file.');
    },
  }),
  WRITE_INPUT_JSON_SCHEMA,
);
export type WriteInput = z.infer<typeof writeInputSchema>;

/**
 * Write's structured result, in Claude Code's shape (the SDK's `FileWriteOutput`). `originalFile`
 * is null for a new file, and for a replaced one too big to keep (then the patch is empty).
 */
export interface WriteResult {
  readonly type: 'create' | 'update';
  readonly filePath: string;
  readonly content: string;
  readonly structuredPatch: PatchHunk[];
  readonly originalFile: string | null;
}

/** A replaced file larger than this is not read back for the result's diff. */
const MAX_ORIGINAL_BYTES = 4 << 20;

/**
 * The Write tool's spec: replacing a file needs a fresh Read of it, so the model never overwrites what
 * it has not seen.
 */
export function writeTool(workspace: Workspace): ToolSpec<WriteInput, string> {
  return {
    name: 'Write',
    description:
      'Writes a file in the workspace, creating missing directories. Replacing an existing file requires ' +
      'that it was read with Read in this session and has not changed since; prefer Edit for small changes. ' +
      'The file is replaced atomically (its mode kept); files with several hard links are not written.',
    inputSchema: writeInputSchema,
    isConcurrencySafe: false,
    async call(input) {
      const path = await workspace.resolveInside(input.file_path);
      const existing = await stat(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (existing?.isDirectory()) {
        throw new ToolRefusal(`${path} is a directory. Give the path of a file inside it instead.`);
      }
      if (existing) await workspace.assertFresh(path, 'overwrite');
      const original = existing && existing.size <= MAX_ORIGINAL_BYTES ? await readOriginal(workspace, path) : null;
      await workspace.beforeWrite?.(path);
      await mkdir(dirname(path), { recursive: true });
      // Atomic: a full disk or a crash leaves the old file, never half of the new one.
      const written = await writeFileAtomic(path, input.content, { contains: workspace.contains });
      // The model knows exactly what the file holds now, so a follow-up Edit needs no re-read.
      workspace.recordRead(path, written);
      const lines = input.content === '' ? 0 : input.content.split('\n').length;
      const structured: WriteResult = {
        type: existing ? 'update' : 'create',
        filePath: path,
        content: input.content,
        structuredPatch: original === null ? [] : filePatch(original, input.content),
        originalFile: original,
      };
      const output = existing
        ? `Overwrote ${path} (${lines} lines, ${Buffer.byteLength(input.content)} bytes).`
        : `Created ${path} (${lines} lines, ${Buffer.byteLength(input.content)} bytes).`;
      return { type: 'outcome', output, structured };
    },
  };
}

/** The replaced file's text for the result's diff; null when it cannot be read (the write itself decides). */
async function readOriginal(workspace: Workspace, path: string): Promise<string | null> {
  try {
    const reader = await workspace.openInside(path, 'read');
    return await reader.readFile('utf8').finally(() => reader.close());
  } catch {
    return null;
  }
}
