/** Read: a text file as numbered lines (`N<TAB>line`, from 1), a window of it at a time. */
import { createReadStream } from 'node:fs';
import { z } from 'zod';
import { READ_INPUT_JSON_SCHEMA } from '../builtinInputJsonSchemas.js';
import { withPrecomputedJsonSchema } from '../precomputedJsonSchema.js';
import type { ToolOutcome, ToolSpec } from '../types.js';
import { fileLooksBinary } from './fileKind.js';
import { ToolRefusal, type Workspace } from './workspace.js';

export const READ_DEFAULT_LINE_LIMIT = 2000;
export const READ_MAX_LINE_CHARS = 2000;

export const readInputSchema = withPrecomputedJsonSchema(
  z.strictObject({
    get file_path() {
      return z.string().describe('Path of the file to read (absolute, or relative to the working directory).');
    },
    get offset() {
      return z.number().int().nonnegative().optional().describe('Line number to start from (1-based). Use for large files.');
    },
    get limit() {
      return z.number().int().positive().optional().describe(`How many lines to read (default ${READ_DEFAULT_LINE_LIMIT}).`);
    },
  }),
  READ_INPUT_JSON_SCHEMA,
);
export type ReadInput = z.infer<typeof readInputSchema>;

/** Read's structured result, in Claude Code's shape (the SDK's `FileReadOutput`, text kind): the lines shown, unnumbered. */
export interface ReadResult {
  readonly type: 'text';
  readonly file: { readonly filePath: string; readonly content: string; readonly numLines: number; readonly startLine: number; readonly totalLines: number };
}

/** The Read tool's spec: numbered lines of a workspace file, and a record of the read that Edit and Write check. */
export function readTool(workspace: Workspace): ToolSpec<ReadInput, string> {
  return {
    name: 'Read',
    description:
      'Reads a text file from the workspace and returns its lines numbered from 1 as "N<TAB>line". ' +
      `Returns at most ${READ_DEFAULT_LINE_LIMIT} lines by default; pass offset and limit to read other parts. ` +
      `Lines longer than ${READ_MAX_LINE_CHARS} characters are shortened. Binary files are refused. ` +
      'A file must be read before it can be edited or overwritten.',
    inputSchema: readInputSchema,
    isConcurrencySafe: true,
    interruptBehavior: 'cancel',
    async call(input, ctx) {
      const path = await workspace.resolveInside(input.file_path);
      const handle = await workspace.openInside(path, 'read').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') {
          throw new ToolRefusal(`File does not exist: ${path}. Check the path, or use Glob to find the file.`);
        }
        throw error;
      });
      try {
        const st = await handle.stat();
        if (st.isDirectory()) {
          throw new ToolRefusal(`${path} is a directory, not a file. Use Glob (or Bash with ls) to list its contents.`);
        }
        if (await fileLooksBinary(handle)) {
          throw new ToolRefusal(
            `${path} is a binary file (${st.size} bytes) and cannot be shown as text. Use Bash (e.g. file, xxd | head) to inspect it.`,
          );
        }
        const first = Math.max(1, input.offset ?? 1);
        const limit = input.limit ?? READ_DEFAULT_LINE_LIMIT;
        const out: string[] = [];
        const raw: string[] = [];
        let total = 0;
        let truncatedLines = 0;
        // Stream the lines so a huge file costs memory only for the window shown, and keep at
        // most a cut line's worth of each line (a 1 GB file without a newline is one line).
        const lines = boundedLines(
          createReadStream('', { fd: handle.fd, autoClose: false, start: 0, encoding: 'utf8', signal: ctx.signal }),
          READ_MAX_LINE_CHARS + 1,
        );
        for await (const line of lines) {
          total++;
          if (total < first || total >= first + limit) continue;
          let text = line;
          if (text.length > READ_MAX_LINE_CHARS) {
            text = `${text.slice(0, READ_MAX_LINE_CHARS)}… [line cut at ${READ_MAX_LINE_CHARS} characters]`;
            truncatedLines++;
          }
          out.push(`${total}\t${text}`);
          raw.push(text);
        }
        workspace.recordRead(path, st);
        const outcome = (output: string): ToolOutcome<string> => ({
          type: 'outcome',
          output,
          structured: { type: 'text', file: { filePath: path, content: raw.join('\n'), numLines: raw.length, startLine: first, totalLines: total } } satisfies ReadResult,
        });
        if (total === 0) return outcome(`(${path} is empty)`);
        if (out.length === 0) {
          return outcome(`(${path} has ${total} lines; offset ${first} is past the end. Use a smaller offset.)`);
        }
        const last = first + out.length - 1;
        const notes: string[] = [];
        if (first > 1 || last < total) {
          notes.push(
            `[Showing lines ${first}-${last} of ${total}.` +
              (last < total ? ` Read more with offset ${last + 1}.]` : ']'),
          );
        }
        if (truncatedLines > 0) notes.push(`[${truncatedLines} long line(s) were cut.]`);
        return outcome(notes.length ? `${out.join('\n')}\n\n${notes.join('\n')}` : out.join('\n'));
      } finally {
        await handle.close();
      }
    },
  };
}

/**
 * Lines of a text stream split at `\n`, `\r\n` or `\r` (as readline does), each holding at most
 * `keep` characters: the rest of an over-long line is counted as read but never stored.
 */
export async function* boundedLines(chunks: AsyncIterable<string>, keep: number): AsyncGenerator<string> {
  let line = '';
  let open = false; // characters seen since the last line break
  let afterCR = false; // the previous chunk ended with \r: a leading \n belongs to that break
  for await (const chunk of chunks) {
    let start = 0;
    if (afterCR && chunk.charCodeAt(0) === 10) start = 1;
    afterCR = false;
    for (let i = start; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      if (line.length < keep) line += chunk.slice(start, Math.min(i, start + keep - line.length));
      yield line;
      line = '';
      open = false;
      if (c === 13) {
        if (i + 1 < chunk.length) {
          if (chunk.charCodeAt(i + 1) === 10) i++;
        } else {
          afterCR = true;
        }
      }
      start = i + 1;
    }
    if (start < chunk.length) {
      open = true;
      if (line.length < keep) line += chunk.slice(start, start + keep - line.length);
    }
  }
  if (open) yield line;
}
