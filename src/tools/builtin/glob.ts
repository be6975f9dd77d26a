/** Glob: files whose path matches a pattern, newest first. */
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { z } from 'zod';
import { GLOB_INPUT_JSON_SCHEMA } from '../builtinInputJsonSchemas.js';
import { withPrecomputedJsonSchema } from '../precomputedJsonSchema.js';
import type { ToolOutcome, ToolSpec } from '../types.js';
import { createGlobMatcher } from './globMatch.js';
import { DEFAULT_SKIPPED_DIRS, walkFiles } from './walkFiles.js';
import { ToolRefusal, type Workspace } from './workspace.js';

export const GLOB_MAX_RESULTS = 100;

export const globInputSchema = withPrecomputedJsonSchema(
  z.strictObject({
    get pattern() {
      return z.string().describe('Glob pattern, e.g. "**/*.ts" or "src/**/*.{js,jsx}". Relative to path.');
    },
    get path() {
      return z.string().optional().describe('Directory to search in (default: the working directory).');
    },
  }),
  GLOB_INPUT_JSON_SCHEMA,
);
export type GlobInput = z.infer<typeof globInputSchema>;

/** Glob's structured result, in Claude Code's shape (the SDK's `GlobOutput`). */
export interface GlobResult {
  readonly filenames: string[];
  readonly durationMs: number;
  readonly numFiles: number;
  readonly truncated: boolean;
  readonly totalMatches: number;
  readonly countIsComplete: boolean;
}

/** The Glob tool's spec: workspace paths matching a pattern, newest first, at most `maxResults` (default 100). */
export function globTool(workspace: Workspace, options: { maxResults?: number } = {}): ToolSpec<GlobInput, string> {
  const maxResults = options.maxResults ?? GLOB_MAX_RESULTS;
  return {
    name: 'Glob',
    description:
      'Finds files in the workspace by glob pattern (*, **, ?, {a,b}, [abc]), newest first. ' +
      `Returns at most ${maxResults} paths. .git and node_modules are skipped unless the pattern names them.`,
    inputSchema: globInputSchema,
    isConcurrencySafe: true,
    interruptBehavior: 'cancel',
    async call(input, ctx) {
      const startedAt = performance.now();
      const base = await workspace.resolveInside(input.path ?? '.');
      const baseStat = await stat(base).catch(() => undefined);
      if (!baseStat?.isDirectory()) {
        throw new ToolRefusal(`${base} is not a directory. Give an existing directory as path (or omit it).`);
      }
      let pattern = input.pattern.split(sep).join('/');
      if (isAbsolute(pattern)) {
        // An absolute pattern must point into the search directory; make it relative to it.
        const rel = relative(base, pattern).split(sep).join('/');
        if (rel.startsWith('..')) {
          throw new ToolRefusal(`The pattern ${input.pattern} is outside ${base}. Use a relative pattern, with path set to the directory to search.`);
        }
        pattern = rel;
      }
      if (pattern.startsWith('./')) pattern = pattern.slice(2);
      const matches = createGlobMatcher(pattern);
      const skipDirs = new Set([...DEFAULT_SKIPPED_DIRS].filter((d) => !pattern.includes(d)));
      // Without `**` a file can be no deeper than the pattern has segments.
      const maxDepth = pattern.includes('**') ? Infinity : pattern.split('/').length - 1;
      const found: Array<{ path: string; mtimeMs: number }> = [];
      let leftOut = 0;
      for await (const file of walkFiles(base, {
        skipDirs,
        allowPath: workspace.contains,
        enterDir: (rel) => rel.split('/').length <= maxDepth,
        signal: ctx.signal,
      })) {
        if (!matches(file.rel)) continue;
        if (workspace.isReadDenied('Glob', file.path, file.real)) {
          leftOut++;
          continue;
        }
        // The checked target for a link, never the link again: it may point elsewhere by now.
        const st = await stat(file.real ?? file.path).catch(() => undefined);
        if (st) found.push({ path: file.path, mtimeMs: st.mtimeMs });
      }
      ctx.signal.throwIfAborted(); // a cut-short walk must not read as "nothing found"
      const denied = leftOut === 0 ? '' : `\n[${leftOut} matching file(s) not listed: permission rules forbid reading them.]`;
      found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
      const shown = found.slice(0, maxResults).map((f) => f.path);
      const outcome = (output: string): ToolOutcome<string> => ({
        type: 'outcome',
        output,
        structured: {
          filenames: shown,
          durationMs: Math.round(performance.now() - startedAt),
          numFiles: shown.length,
          truncated: found.length > maxResults,
          totalMatches: found.length,
          countIsComplete: true,
        } satisfies GlobResult,
      });
      if (found.length === 0) return outcome(`No files match ${input.pattern} in ${base}.${denied}`);
      return outcome(
        found.length > maxResults
          ? `${shown.join('\n')}\n[${found.length - maxResults} more results not shown (${found.length} in all). Use a narrower pattern or path.]${denied}`
          : `${shown.join('\n')}${denied}`,
      );
    },
  };
}
