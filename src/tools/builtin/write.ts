/** Write: create a file, or replace one that was Read in this session and is unchanged since. */
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { ToolSpec } from '../types.js';
import { writeFileAtomic } from './atomicWrite.js';
import { ToolRefusal, type Workspace } from './workspace.js';

export const writeInputSchema = z.strictObject({
  file_path: z.string().describe('Path of the file to write (absolute, or relative to the working directory).'),
  content: z.string().describe('The complete new content of the file.'),
});
export type WriteInput = z.infer<typeof writeInputSchema>;

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
      await mkdir(dirname(path), { recursive: true });
      // Atomic: a full disk or a crash leaves the old file, never half of the new one.
      const written = await writeFileAtomic(path, input.content, { contains: workspace.contains });
      // The model knows exactly what the file holds now, so a follow-up Edit needs no re-read.
      workspace.recordRead(path, written);
      const lines = input.content === '' ? 0 : input.content.split('\n').length;
      return existing
        ? `Overwrote ${path} (${lines} lines, ${Buffer.byteLength(input.content)} bytes).`
        : `Created ${path} (${lines} lines, ${Buffer.byteLength(input.content)} bytes).`;
    },
  };
}
