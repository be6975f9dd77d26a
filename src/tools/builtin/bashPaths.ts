/**
 * Whether a read-only shell command stays inside the workspace: `cat ~/.ssh/id_rsa` only reads,
 * yet it must not run without asking. The permission modes auto-allow a read-only command only
 * when this says every path it could touch lies inside a root.
 *
 * Conservative by construction: every argument that could name a file (operands, `--opt=value`
 * values, values glued to short options, `cd` targets) is resolved against every working
 * directory the command may have reached (a `cd` that fails leaves the old one) and followed
 * through symlinks. Glob patterns are only accepted in the last path segment, never where they
 * could match `..`, and not in a directory holding a symlink that leads out. Flags that make a
 * program follow symlinks while recursing are refused outright. Synchronous on purpose: the
 * permission policy is synchronous, and a command has a handful of arguments.
 */
import { type Dirent, existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { analyzeBashCommand, classifyBashCommand } from './bashReadOnly.js';
import type { ShellWord } from './shellParse.js';

export interface PathScope {
  /** Working directory of the command. */
  readonly cwd: string;
  /** Workspace roots (absolute); default `[cwd]`. */
  readonly roots?: readonly string[];
  /** What `~` means; default `os.homedir()`. */
  readonly homeDir?: string;
}

export type PathVerdict = { readonly inside: true } | { readonly inside: false; readonly reason: string };

/** Flags that make a program follow symlinks while walking a tree (so out of the workspace). */
const FOLLOWING_FLAGS: Readonly<Record<string, (arg: string) => boolean>> = {
  grep: (a) => a === '--dereference-recursive' || (/^-[^-]/.test(a) && a.includes('R')),
  rg: (a) => a === '--follow' || (/^-[^-]/.test(a) && a.includes('L')),
  find: (a) => a === '-L' || a === '-follow' || a === '-H',
  du: (a) => a === '--dereference' || a === '--dereference-args' || (/^-[^-]/.test(a) && /[LD]/.test(a)),
  ls: (a) => a === '--dereference' || (/^-[^-]/.test(a) && a.includes('L')),
};

const GLOB_CHARS = /[*?[]/;

/**
 * Whether the command reads the working directory's tree without naming it: git (any file of
 * the repository), rg/grep -r with only a pattern, find/du without a path, ls -R.
 */
function readsWorkingTree(program: string, args: readonly string[], operands: number): boolean {
  const shortFlag = (letters: RegExp) => args.some((a) => /^-[^-]/.test(a) && letters.test(a));
  switch (program) {
    case 'git':
      return true;
    case 'rg':
      return operands <= 1;
    case 'grep':
      return operands <= 1 && (shortFlag(/[rR]/) || args.includes('--recursive') || args.includes('--dereference-recursive'));
    case 'find':
    case 'du':
      return operands === 0;
    case 'ls':
      return operands === 0 && (shortFlag(/R/) || args.includes('--recursive'));
    default:
      return false;
  }
}

/**
 * The absolute paths a read-only command may read, as written and as resolved, plus the working
 * directory for programs that read whole trees (`grep -r x`, `find`, `git`). For checking Read
 * deny/ask rules against shell reads. Undefined when the command is not read-only.
 */
export function bashReadTargets(command: string, scope: PathScope): string[] | undefined {
  const touched: string[] = [];
  if (!classifyBashCommand(command).readOnly) return undefined;
  bashPathsStayInside(command, scope, touched);
  return touched;
}

export function bashPathsStayInside(command: string, scope: PathScope, touched?: string[]): PathVerdict {
  const verdict = analyzeBashCommand(command);
  if (!verdict.readOnly) return { inside: false, reason: verdict.reason };
  const home = scope.homeDir ?? homedir();
  const roots = (scope.roots ?? [scope.cwd]).map(realOrNearest);
  const inRoots = (p: string) => roots.some((root) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep));
  // Every directory the command may be in by now; `cd` adds its target without removing the old one.
  const cwds = new Set([realOrNearest(resolve(scope.cwd))]);

  // A hostile command repeats words (`cat a* a* a* …`) or globs in one directory: each distinct
  // word is checked once, each directory listed once, so the check stays linear in its size.
  const checked = new Map<string, string | undefined>();
  const leadsOut = new Map<string, boolean>();
  const touchedSeen = new Set<string>();
  const touch = (path: string) => {
    if (touched && !touchedSeen.has(path)) {
      touchedSeen.add(path);
      touched.push(path);
    }
  };
  const check = (word: ShellWord): string | undefined => {
    const raw = word.value ?? '';
    if (raw === '' || raw === '-') return undefined;
    for (const cwd of cwds) {
      const key = `${word.glob ? 'g' : 'p'}\0${cwd}\0${raw}`;
      if (!checked.has(key)) {
        const problem = checkOne(raw, word.glob, cwd, home, inRoots, leadsOut);
        checked.set(key, problem);
        if (problem === undefined && touched) {
          const expanded = expandTilde(raw, home);
          touch(resolve(cwd, expanded));
          touch(kernelResolve(cwd, expanded));
        }
      }
      const problem = checked.get(key);
      if (problem) return problem;
    }
    return undefined;
  };

  for (const { program, args, paths, operandCount } of verdict.commands) {
    if (program === 'cd') {
      const target = paths[0] ?? { value: '~', glob: false, brace: false, tilde: true };
      if (target.value === '-') return { inside: false, reason: 'cd - goes to a directory we cannot see' };
      if (target.glob) return { inside: false, reason: 'cd to a glob' };
      // CDPATH is ignored: the sandbox and our own bash never set it, and a relative target is
      // resolved here against the working directories only.
      const problem = check(target);
      if (problem) return { inside: false, reason: problem };
      for (const cwd of [...cwds]) cwds.add(kernelResolve(cwd, expandTilde(target.value ?? '~', home)));
      continue;
    }
    if (program === 'git') {
      for (const cwd of cwds) {
        const bare = implicitBareRepository(cwd, inRoots);
        if (bare) return { inside: false, reason: `${bare} looks like a bare git repository written in the workspace; its config could run commands` };
      }
    }
    const follows = FOLLOWING_FLAGS[program];
    const following = follows ? args.find(follows) : undefined;
    if (following !== undefined) return { inside: false, reason: `${program} ${following} follows symlinks out of the workspace` };
    for (const word of paths) {
      const problem = check(word);
      if (problem) return { inside: false, reason: problem };
    }
    if (readsWorkingTree(program, args, operandCount)) cwds.forEach(touch);
  }
  return { inside: true };
}

function expandTilde(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

/** A reason when `raw` (as bash would see it from `cwd`) may reach outside the roots. */
function checkOne(raw: string, isGlob: boolean, cwd: string, home: string, inRoots: (p: string) => boolean, leadsOut: Map<string, boolean>): string | undefined {
  if (raw.includes('\0')) return `${JSON.stringify(raw)} contains a NUL byte`;
  if (raw.startsWith('~') && raw !== '~' && !raw.startsWith('~/')) return `${raw} names another user's home directory`;
  const expanded = expandTilde(raw, home);
  const segments = expanded.split('/');
  const globAt = isGlob ? segments.findIndex((s) => GLOB_CHARS.test(s)) : -1;
  if (globAt === -1) {
    return inRoots(kernelResolve(cwd, expanded)) ? undefined : `${raw} is outside the workspace`;
  }
  // Bash expands the pattern: its fixed part must be inside, it may only vary in the last
  // segment, must not be able to match `..`, and must not pick up a symlink that leads out.
  const glob = segments[globAt]!;
  if (globAt !== segments.length - 1) return `${raw} has a wildcard in a directory part`;
  if (glob.startsWith('.')) return `${raw} could match ..`;
  const dir = kernelResolve(cwd, segments.slice(0, globAt).join('/') || (isAbsolute(expanded) ? '/' : '.'));
  if (!inRoots(dir)) return `${raw} is outside the workspace`;
  if (!leadsOut.has(dir)) leadsOut.set(dir, symlinkLeadingOut(dir, inRoots));
  return leadsOut.get(dir) === true ? `${raw} may expand to a symlink that leads out of the workspace` : undefined;
}

/**
 * Where the kernel would land for `path` from `cwd`: unlike `path.resolve`, a `..` after a
 * symlink leaves the symlink's target, not the link's directory (`link/../x`).
 */
export function kernelResolve(cwd: string, path: string): string {
  let current = isAbsolute(path) ? sep : realOrNearest(cwd);
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    current = segment === '..' ? dirname(realOrNearest(current)) : join(current, segment);
  }
  return realOrNearest(current);
}

function symlinkLeadingOut(dir: string, inRoots: (p: string) => boolean): boolean {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true }); // types without an lstat per entry
  } catch {
    return false; // nothing to expand into
  }
  return entries.some((entry) => entry.isSymbolicLink() && !inRoots(realOrNearest(join(dir, entry.name))));
}

/**
 * realpath of `abs`; for a missing path, realpath of its nearest existing parent plus the rest.
 * A dangling symlink is followed to where it points.
 */
export function realOrNearest(abs: string, hops = 0): string {
  if (hops > 40) return sep + '\0loop'; // never inside a root
  const missing: string[] = [];
  let current = abs;
  for (;;) {
    try {
      const real = realpathSync(current);
      return missing.length === 0 ? real : resolve(real, ...missing.reverse());
    } catch {
      let target: string | undefined;
      try {
        target = lstatSync(current).isSymbolicLink() ? readlinkSync(current) : undefined;
      } catch {
        target = undefined;
      }
      if (target !== undefined) {
        const next = isAbsolute(target) ? target : resolve(dirname(current), target);
        return realOrNearest(resolve(next, ...missing.reverse()), hops + 1);
      }
      const parent = dirname(current);
      if (parent === current) return abs;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/**
 * The directory git would take as a bare repository when run from `cwd`, if it lies in the
 * workspace: git looks for `.git` and then for `HEAD` + `objects/` + `refs/` in each directory
 * up the tree. A model allowed to edit files (acceptEdits) can write those plus a `config` with
 * `core.fsmonitor`, and a "read-only" `git status` would run it. A real `.git` first wins.
 */
function implicitBareRepository(cwd: string, inRoots: (p: string) => boolean): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return undefined;
    if (inRoots(dir) && looksLikeGitDir(dir)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function looksLikeGitDir(dir: string): boolean {
  try {
    return statSync(join(dir, 'HEAD')).isFile() && statSync(join(dir, 'objects')).isDirectory() && statSync(join(dir, 'refs')).isDirectory();
  } catch {
    return false;
  }
}
