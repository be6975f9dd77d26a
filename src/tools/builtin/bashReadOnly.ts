/**
 * Decides whether a shell command only reads: it may then run in parallel with other safe tools
 * and (in the default mode) without asking. Conservative on purpose: anything the parser does not
 * fully understand, and any program or option not on the allowlist, counts as unsafe.
 */
import { parseCommandLine } from './shellWords.js';

type ArgCheck = (args: readonly string[]) => boolean;

const anyArgs: ArgCheck = () => true;
const noneOf = (...banned: string[]): ArgCheck => (args) =>
  !args.some((a) => banned.some((b) => a === b || (b.endsWith('=') ? a.startsWith(b) : a.startsWith(`${b}=`))));

/** Subcommands of git that only read, and the options that would make them write. */
const gitReadOnly: Readonly<Record<string, ArgCheck>> = {
  status: anyArgs,
  // --ext-diff / --textconv run programs named in (possibly model-written) git config.
  log: noneOf('--output', '--ext-diff', '--textconv'),
  diff: noneOf('--output', '--ext-diff', '--textconv'),
  show: noneOf('--output', '--ext-diff', '--textconv'),
  // Listing only: every argument must be a listing flag (a bare name would create a branch).
  branch: (args) =>
    args.every((a) =>
      ['-a', '-r', '-v', '-vv', '-l', '--list', '--all', '--remotes', '--verbose', '--show-current', '--no-color', '--color'].includes(a),
    ),
};

const programs: Readonly<Record<string, ArgCheck>> = {
  ls: anyArgs,
  cat: anyArgs,
  head: anyArgs,
  tail: anyArgs,
  wc: anyArgs,
  grep: anyArgs,
  rg: noneOf('--pre'), // --pre runs a program on every file
  find: noneOf('-exec', '-execdir', '-delete', '-ok', '-okdir', '-fprint', '-fprint0', '-fprintf', '-fls'),
  echo: anyArgs,
  pwd: anyArgs,
  sleep: anyArgs,
  which: anyArgs,
  file: (args) => noneOf('--compile')(args) && !args.some((a) => /^-[^-]*C/.test(a)), // -C writes a compiled magic file
  stat: anyArgs,
  du: anyArgs,
  df: anyArgs,
  // -s may hide in a cluster of short flags (`-us`).
  date: (args) => noneOf('--set')(args) && !args.some((a) => /^-[^-]*s/.test(a)),
  // Changes only this shell's directory; the permission check confines its target to the workspace.
  cd: (args) => args.length <= 1,
  git: (args) => {
    const [sub, ...rest] = args;
    const check = sub === undefined ? undefined : gitReadOnly[sub];
    return check !== undefined && check(rest);
  },
};

/** Whether a command only reads, and if not, the first reason found. */
export type ReadOnlyVerdict = { readonly readOnly: true } | { readonly readOnly: false; readonly reason: string };

/** Classifies a command as read-only or not, saying why not (see the file head: unknown means unsafe). */
export function classifyBashCommand(command: string): ReadOnlyVerdict {
  const parsed = parseCommandLine(command);
  if (!parsed.ok) return { readOnly: false, reason: parsed.reason };
  for (const words of parsed.value.commands) {
    const [program, ...args] = words;
    if (program === undefined) return { readOnly: false, reason: 'empty command' };
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(program)) return { readOnly: false, reason: 'variable assignment' };
    const check = Object.hasOwn(programs, program) ? programs[program] : undefined;
    if (!check) return { readOnly: false, reason: `${program} is not on the read-only list` };
    if (!check(args)) return { readOnly: false, reason: `${program} with these arguments may write` };
  }
  return { readOnly: true };
}

/** True only when the whole command line is recognised as read-only. */
export function isReadOnlyBashCommand(command: string): boolean {
  return classifyBashCommand(command).readOnly;
}
