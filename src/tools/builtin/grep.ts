/**
 * Grep: search file contents with a regular expression, run on RE2 (`re2js`): matching time is
 * linear in the input whatever the pattern, so no pattern can freeze the process (a backtracking
 * engine spends hours on `(a+)+$`). RE2 syntax is what ripgrep (Claude Code's Grep) takes: no
 * lookaround or backreferences.
 */
import { stat } from 'node:fs/promises';
import { RE2JS } from 're2js';
import { basename, relative, sep } from 'node:path';
import { z } from 'zod';
import { GREP_INPUT_JSON_SCHEMA } from '../builtinInputJsonSchemas.js';
import { withPrecomputedJsonSchema } from '../precomputedJsonSchema.js';
import type { ToolSpec } from '../types.js';
import { createGlobMatcher } from './globMatch.js';
import { type LineMatcher, scanFile, type ScanOutcome, type ScanSink } from './scanFile.js';
import { DEFAULT_SKIPPED_DIRS, walkFileBatches, type WalkedFile } from './walkFiles.js';
import { ToolRefusal, type Workspace } from './workspace.js';

export const GREP_MAX_OUTPUT_CHARS = 30_000;
export const GREP_MAX_LINE_CHARS = 500;
/** Longest stretch of synchronous scanning before yielding to the event loop. */
const SLICE_MS = 10;

export const grepInputSchema = withPrecomputedJsonSchema(
  z.strictObject({
    get pattern() {
      return z.string().describe('Regular expression to search for (RE2/ripgrep syntax: no lookaround or backreferences).');
    },
    get path() {
      return z.string().optional().describe('File or directory to search (default: the working directory).');
    },
    get glob() {
      return z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.{js,jsx}".');
    },
    get output_mode() {
      return z
        .enum(['content', 'files_with_matches', 'count'])
        .optional()
        .describe('"files_with_matches" (default): paths only; "content": matching lines; "count": matches per file.');
    },
    get '-i'() {
      return z.boolean().optional().describe('Case-insensitive search.');
    },
    get '-n'() {
      return z.boolean().optional().describe('Show line numbers in content mode (default true).');
    },
    get '-A'() {
      return z.number().int().nonnegative().optional().describe('Lines of context after each match (content mode).');
    },
    get '-B'() {
      return z.number().int().nonnegative().optional().describe('Lines of context before each match (content mode).');
    },
    get '-C'() {
      return z.number().int().nonnegative().optional().describe('Lines of context before and after each match (content mode).');
    },
    get head_limit() {
      return z.number().int().positive().optional().describe('Return only the first N lines / files / counts.');
    },
  }),
  GREP_INPUT_JSON_SCHEMA,
);
export type GrepInput = z.infer<typeof grepInputSchema>;

type Mode = 'content' | 'files_with_matches' | 'count';


/** The Grep tool's spec: a regular-expression search of file contents that yields to the event loop while it scans. */
export function grepTool(workspace: Workspace): ToolSpec<GrepInput, string> {
  return {
    name: 'Grep',
    description:
      'Searches file contents in the workspace with a regular expression (RE2 syntax, as ripgrep: no lookaround or backreferences). Output modes: ' +
      '"files_with_matches" (default), "content" (matching lines, with -n line numbers and -A/-B/-C context) ' +
      'and "count". Filter files with glob. Binary files, .git and node_modules are skipped unless path points into them.',
    inputSchema: grepInputSchema,
    isConcurrencySafe: true,
    interruptBehavior: 'cancel',
    async call(input, ctx) {
      const mode: Mode = input.output_mode ?? 'files_with_matches';
      const matcher = compileMatcher(input.pattern, input['-i'] === true);
      const root = await workspace.resolveInside(input.path ?? '.');
      const rootStat = await stat(root).catch(() => undefined);
      if (!rootStat) throw new ToolRefusal(`Path does not exist: ${root}. Check it, or omit path to search the working directory.`);
      // A FIFO or device would block the synchronous scan (and so the whole process) forever.
      if (!rootStat.isDirectory() && !rootStat.isFile()) throw new ToolRefusal(`${root} is not a regular file or directory; only those can be searched.`);
      const before = input['-B'] ?? input['-C'] ?? 0;
      const after = input['-A'] ?? input['-C'] ?? 0;
      const showNumbers = input['-n'] ?? true;
      const headLimit = input.head_limit ?? Infinity;
      const display = (p: string) => {
        const rel = relative(workspace.cwd, p);
        return rel.startsWith('..') ? p : rel.split(sep).join('/');
      };
      const globMatch = input.glob === undefined ? undefined : createGlobMatcher(input.glob);
      const globOnPath = input.glob?.includes('/') ?? false;
      const skipDirs = new Set(
        [...DEFAULT_SKIPPED_DIRS].filter((d) => !root.split(sep).includes(d) && !(input.glob ?? '').includes(d)),
      );

      const results: FileResult[] = [];
      let entriesSoFar = 0;
      let charsSoFar = 0;
      let stoppedEarly = false;
      const isDirectory = rootStat.isDirectory();
      const batches = isDirectory ? walkFileBatches(root, { skipDirs, allowPath: workspace.contains, signal: ctx.signal }) : single(root);
      let leftOut = 0;
      let sliceStart = performance.now();
      walk: for await (const batch of batches) {
        for (const file of batch) {
          if (entriesSoFar >= headLimit) {
            stoppedEarly = true;
            break walk;
          }
          if (globMatch && !globMatch(globOnPath ? file.rel : basename(file.path))) continue;
          if (isDirectory && workspace.isReadDenied('Grep', file.path, file.real)) {
            leftOut++;
            continue;
          }
          const result = new FileResult(file.path, display);
          const scanned = scanFile(file.real ?? file.path, matcher, createSink(mode, result, { before, after, showNumbers }), workspace.contains);
          const outcome = typeof scanned === 'string' ? scanned : await scanned;
          if (!isDirectory) refuseSingle(root, outcome);
          if (result.count > 0) {
            results.push(result);
            entriesSoFar += mode === 'content' ? result.entries.length : 1;
            // Stop once the output is over the cap anyway: a pattern like "." must not
            // gather every line of the tree in memory only to cut it afterwards.
            charsSoFar += mode === 'content' ? result.entries.reduce((n, e) => n + e.length + 1, 0) : result.display.length + 8;
            if (charsSoFar > GREP_MAX_OUTPUT_CHARS) break walk;
          }
          // Most files are scanned synchronously (see scanFile); give other tools and the model's
          // stream a turn every few milliseconds. This is a yield point, not a delay.
          if (performance.now() - sliceStart > SLICE_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            ctx.signal.throwIfAborted();
            sliceStart = performance.now();
          }
        }
      }
      ctx.signal.throwIfAborted();
      const { text, structured } = render(mode, results, headLimit, input.pattern, stoppedEarly);
      const output = leftOut === 0 ? text : `${text}\n[${leftOut} file(s) not searched: permission rules forbid reading them.]`;
      return { type: 'outcome', output, structured };
    },
  };
}

/** A file given as `path` that turned out not to be searchable says why (a walk skips such files). */
function refuseSingle(path: string, outcome: ScanOutcome): void {
  if (outcome === 'not-regular') throw new ToolRefusal(`${path} is not a regular file (a FIFO, device or socket); only files can be searched.`);
  if (outcome === 'symlink' || outcome === 'outside') {
    throw new ToolRefusal(`Access denied: ${path} changed after it was checked (it is now a link or lies outside the workspace).`);
  }
}

async function* single(path: string): AsyncGenerator<WalkedFile[]> {
  yield [{ path, rel: basename(path) }];
}

/** One file's matches. The display path is computed on the first match only: most files never match. */
class FileResult {
  readonly entries: string[] = [];
  count = 0;
  #shown: string | undefined;
  constructor(
    private readonly path: string,
    private readonly toDisplay: (p: string) => string,
  ) {}
  get display(): string {
    return (this.#shown ??= this.toDisplay(this.path));
  }
}

function compileMatcher(pattern: string, ignoreCase: boolean): LineMatcher {
  let line: RE2JS;
  let chunk: RE2JS;
  try {
    line = RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    chunk = RE2JS.compile(pattern, RE2JS.MULTILINE | (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0));
  } catch (error) {
    throw new ToolRefusal(
      `Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}. Use RE2 syntax (as ripgrep): no lookaround or backreferences; escape special characters such as ( [ { . * + ? with a backslash.`,
    );
  }
  const literal = !ignoreCase && pattern !== '' && !/[\\^$.*+?()[\]{}|]/.test(pattern) ? Buffer.from(pattern, 'utf8') : undefined;
  return {
    test: (text) => line.test(text),
    prefilter: (text) => chunk.test(text),
    ...(literal ? { literal } : {}),
  };
}

function createSink(
  mode: Mode,
  result: FileResult,
  opts: { before: number; after: number; showNumbers: boolean },
): ScanSink {
  if (mode !== 'content') {
    return {
      line: (_text, _n, matched) => {
        if (matched) result.count++;
      },
      wantsUnmatchedLines: false,
      done: mode === 'files_with_matches' ? () => result.count > 0 : () => false,
    };
  }
  const withContext = opts.before > 0 || opts.after > 0;
  const recent: Array<{ text: string; n: number }> = [];
  let afterLeft = 0;
  let lastEmitted = 0;
  const emit = (text: string, n: number, sepChar: ':' | '-') => {
    if (withContext && lastEmitted > 0 && n > lastEmitted + 1) result.entries.push('--');
    const shown = text.length > GREP_MAX_LINE_CHARS ? `${text.slice(0, GREP_MAX_LINE_CHARS)}… [line cut]` : text;
    result.entries.push(opts.showNumbers ? `${result.display}${sepChar}${n}${sepChar}${shown}` : `${result.display}${sepChar}${shown}`);
    lastEmitted = n;
  };
  return {
    wantsUnmatchedLines: opts.before > 0 || opts.after > 0,
    line(text, n, matched) {
      if (text.endsWith('\r')) text = text.slice(0, -1);
      if (matched) {
        result.count++;
        for (const r of recent) if (r.n > lastEmitted) emit(r.text, r.n, '-');
        recent.length = 0;
        emit(text, n, ':');
        afterLeft = opts.after;
      } else if (afterLeft > 0) {
        emit(text, n, '-');
        afterLeft--;
      } else if (opts.before > 0) {
        recent.push({ text, n });
        if (recent.length > opts.before) recent.shift();
      }
    },
    done: () => false,
  };
}

/**
 * Grep's structured result, in Claude Code's shape (the SDK's `GrepOutput`): the files with
 * matches (in every mode), and in content/count mode the text shown and its line or match count.
 */
export interface GrepResult {
  readonly mode: Mode;
  readonly numFiles: number;
  readonly filenames: string[];
  readonly content?: string;
  readonly numLines?: number;
  readonly numMatches?: number;
  readonly appliedLimit?: number;
}

function render(mode: Mode, results: readonly FileResult[], headLimit: number, pattern: string, stoppedEarly: boolean): { text: string; structured: GrepResult } {
  const lines: string[] = [];
  let files = 0;
  let total = 0;
  for (const r of results) {
    files++;
    total += r.count;
    if (mode === 'files_with_matches') lines.push(r.display);
    else if (mode === 'count') lines.push(`${r.display}:${r.count}`);
    else lines.push(...r.entries);
  }
  const structuredOf = (shownLines: readonly string[], cut: boolean): GrepResult => {
    const filenames = mode === 'files_with_matches' ? [...shownLines] : results.map((r) => r.display);
    return {
      mode,
      numFiles: filenames.length,
      filenames,
      ...(mode === 'files_with_matches' ? {} : { content: shownLines.join('\n') }),
      ...(mode === 'content' ? { numLines: shownLines.length } : {}),
      ...(mode === 'count' ? { numMatches: total } : {}),
      ...(cut && Number.isFinite(headLimit) ? { appliedLimit: headLimit } : {}),
    };
  };
  if (files === 0) return { text: `No matches for ${JSON.stringify(pattern)}.`, structured: structuredOf([], false) };
  const notes: string[] = [];
  let shown = lines;
  if (lines.length > headLimit || stoppedEarly) {
    shown = lines.slice(0, headLimit);
    notes.push(`[head_limit ${headLimit}: later results not shown.]`);
  }
  let text = shown.join('\n');
  if (text.length > GREP_MAX_OUTPUT_CHARS) {
    const cut = text.lastIndexOf('\n', GREP_MAX_OUTPUT_CHARS);
    text = text.slice(0, cut > 0 ? cut : GREP_MAX_OUTPUT_CHARS);
    notes.push(`[Output cut at ${GREP_MAX_OUTPUT_CHARS} characters. Narrow the search with path, glob or a more specific pattern, or use head_limit.]`);
  }
  if (mode === 'count') notes.unshift(`[${total} matches in ${files} files]`);
  const structured = structuredOf(text === '' ? [] : text.split('\n'), shown !== lines);
  return { text: notes.length ? `${text}\n${notes.join('\n')}` : text, structured };
}
