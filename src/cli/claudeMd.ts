/**
 * `CLAUDE.md` memory files, read as Claude Code reads them, for the system prompt:
 *
 * - user (`--setting-sources` has `user`): `~/.claude/CLAUDE.md`;
 * - project (`project`): `CLAUDE.md` and `.claude/CLAUDE.md` in every directory from the
 *   repository root (the nearest parent with `.git`; the working directory when there is none)
 *   down to the working directory, outermost first;
 * - local (`local`): `CLAUDE.local.md` in the working directory.
 *
 * `@path` references (`@docs/style.md`, `@~/notes.md`; not inside code) include that file's text
 * in place, relative to the file that names them, at most `MAX_IMPORT_DEPTH` deep, each file
 * once. Everything is bounded: a file over `MAX_MEMORY_FILE_BYTES`, or text past
 * `MAX_MEMORY_TOTAL_CHARS` in all, is cut with a warning; unreadable files are warnings.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { SettingSource } from './args.js';

export const MAX_IMPORT_DEPTH = 5;
export const MAX_MEMORY_FILE_BYTES = 256 * 1024;
export const MAX_MEMORY_TOTAL_CHARS = 400_000;

export interface MemoryFile {
  readonly path: string;
  readonly text: string;
}

export interface LoadedMemory {
  readonly files: readonly MemoryFile[];
  readonly warnings: readonly string[];
}

/** The directories from the repository root down to `cwd`. */
function projectDirs(cwd: string): string[] {
  const chain: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (existsSync(join(dir, '.git'))) return chain;
    if (dirname(dir) === dir) return [resolve(cwd)];
  }
}

const IMPORT = /(^|\s)@((?:~\/|\.{0,2}\/)?[\w./-]+)/g;

/** Lines outside fenced code blocks and inline code, where `@path` may import. */
function importsOf(text: string): string[] {
  const found: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const plain = line.replace(/`[^`]*`/g, '');
    for (const match of plain.matchAll(IMPORT)) found.push(match[2] as string);
  }
  return found;
}

export function loadMemoryFiles(options: { cwd: string; homeDir: string; sources?: readonly SettingSource[] }): LoadedMemory {
  const sources = new Set(options.sources ?? ['user', 'project', 'local']);
  const roots: string[] = [];
  if (sources.has('user')) roots.push(join(options.homeDir, '.claude', 'CLAUDE.md'));
  if (sources.has('project')) for (const dir of projectDirs(options.cwd)) roots.push(join(dir, 'CLAUDE.md'), join(dir, '.claude', 'CLAUDE.md'));
  if (sources.has('local')) roots.push(join(resolve(options.cwd), 'CLAUDE.local.md'));

  const files: MemoryFile[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  let total = 0;

  const read = (path: string, depth: number, importedBy?: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    let text: string;
    try {
      const st = statSync(path);
      if (!st.isFile()) return;
      if (st.size > MAX_MEMORY_FILE_BYTES) {
        warnings.push(`${path}: larger than ${MAX_MEMORY_FILE_BYTES} bytes; not read`);
        return;
      }
      text = readFileSync(path, 'utf8');
    } catch (error) {
      // A missing file is the usual case (and `@name` is often a mention, not an import): silent.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        warnings.push(`${importedBy ?? path}: cannot read ${path}: ${(error as Error).message}`);
      }
      return;
    }
    if (total + text.length > MAX_MEMORY_TOTAL_CHARS) {
      warnings.push(`${path}: memory files exceed ${MAX_MEMORY_TOTAL_CHARS} characters in all; the rest is left out`);
      return;
    }
    total += text.length;
    files.push({ path, text });
    for (const ref of importsOf(text)) {
      if (depth >= MAX_IMPORT_DEPTH) {
        warnings.push(`${path}: @${ref} is deeper than ${MAX_IMPORT_DEPTH} imports; not read`);
        continue;
      }
      const target = ref.startsWith('~/') ? join(options.homeDir, ref.slice(2)) : isAbsolute(ref) ? ref : resolve(dirname(path), ref);
      read(target, depth + 1, path);
    }
  };
  for (const root of roots) read(root, 0);
  return { files, warnings };
}

/** The memory files as a system prompt section (empty when there are none). */
export function memorySection(files: readonly MemoryFile[]): string {
  if (files.length === 0) return '';
  const parts = files.map((f) => `Contents of ${f.path}:\n\n${f.text.trim()}`);
  return ['Instructions from the project and the user (CLAUDE.md files). Follow them; they override the defaults above.', ...parts].join('\n\n');
}
