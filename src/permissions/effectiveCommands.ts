/**
 * The commands a shell line really runs, for Bash permission rules: every simple command the
 * parser finds (inside substitutions, loops and functions too), with `/bin/rm`-style paths cut
 * to the program name and wrappers unwrapped (`env`, `nice`, `timeout`, `xargs`, `command`,
 * `builtin`, `exec`, `nohup`, `stdbuf`, `sudo`, `sh -c '…'`, `eval …`), so `Bash(rm:*)` denies
 * `/bin/rm`, `env rm`, `timeout 5 rm`, `xargs rm`, `sh -c 'rm x'` and `eval rm x` alike.
 *
 * A command whose program cannot be known before it runs (`$cmd`, `rm${IFS}x` as a name,
 * `/bin/r?`, `sh script.sh`, `source f`) makes the line `dynamic`: no deny rule can be shown not
 * to match it, so the policy asks.
 */
import { basename } from 'node:path';
import { isStaticWord, parseShell, type ShellWord } from '../tools/builtin/shellParse.js';

export interface EffectiveCommands {
  /** Each command as words; a word bash computes at run time is `undefined`. */
  readonly commands: ReadonlyArray<ReadonlyArray<string | undefined>>;
  /** Why some command's program cannot be known (undefined when every one is known). */
  readonly dynamic: string | undefined;
  /** Whether the line redirects output into a file (anything but /dev/null): no allow rule covers that. */
  readonly writesFiles?: boolean;
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'busybox']);
const MAX_DEPTH = 8;

/** The effective commands of a line (see the file head). */
export function effectiveCommandsOf(command: string, depth = 0): EffectiveCommands {
  if (depth > MAX_DEPTH) return { commands: [], dynamic: 'shells nested too deeply to follow' };
  const parsed = parseShell(command);
  if (!parsed.ok) return { commands: [], dynamic: parsed.reason };
  const commands: Array<ReadonlyArray<string | undefined>> = [];
  let dynamic: string | undefined;
  let writesFiles = false;
  for (const simple of parsed.script.commands) {
    writesFiles ||= simple.redirects.some((r) => (r.kind === 'write' || r.kind === 'readwrite') && !(isStaticWord(r.target) && r.target.value === '/dev/null'));
    const unwrapped = unwrap(simple.words, depth);
    commands.push(...unwrapped.commands);
    dynamic ??= unwrapped.dynamic;
  }
  return { commands, dynamic, writesFiles };
}

type Words = readonly ShellWord[];

function unwrap(words: Words, depth: number): EffectiveCommands {
  let rest: Words | undefined = words;
  const seen: Array<ReadonlyArray<string | undefined>> = [];
  for (let hops = 0; hops < 16 && rest !== undefined; hops++) {
    const current: Words = rest;
    const [first] = current;
    if (first === undefined) return { commands: seen, dynamic: undefined };
    if (!isStaticWord(first)) return { commands: seen, dynamic: 'the program name is computed when it runs' };
    const name = basename(first.value);
    const argv = [name, ...current.slice(1).map((w) => (isStaticWord(w) ? w.value : undefined))];
    seen.push(argv);
    const args = current.slice(1);
    switch (name) {
      case 'env':
        rest = skipOptions(args, { valued: ['-u', '--unset', '-C', '--chdir'], flags: ['-i', '-0', '--ignore-environment', '--null', '-'], refuse: ['-S', '--split-string'], assignments: true });
        break;
      case 'nice':
        rest = skipOptions(args, { valued: ['-n', '--adjustment'], flags: [], numeric: true });
        break;
      case 'nohup':
      case 'builtin':
        rest = args;
        break;
      case 'time':
        rest = skipOptions(args, { valued: [], flags: ['-p'] });
        break;
      case 'command':
        rest = skipOptions(args, { valued: [], flags: ['-p', '-v', '-V'] });
        break;
      case 'exec':
        rest = skipOptions(args, { valued: ['-a'], flags: ['-c', '-l'] });
        break;
      case 'stdbuf':
        rest = skipOptions(args, { valued: ['-i', '-o', '-e', '--input', '--output', '--error'], flags: [] });
        break;
      case 'sudo':
      case 'doas':
        rest = skipOptions(args, { valued: ['-u', '-g', '-C', '-D', '-h', '-p', '-U'], flags: ['-n', '-E', '-H', '-k', '-S', '-i', '-s', '-b', '-P'], assignments: true });
        break;
      case 'timeout': {
        const after = skipOptions(args, { valued: ['-s', '--signal', '-k', '--kill-after'], flags: ['--preserve-status', '--foreground', '-v', '--verbose'] });
        rest = after?.slice(1); // the duration
        break;
      }
      case 'xargs': {
        const after = skipOptions(args, {
          valued: ['-I', '-L', '-n', '-P', '-s', '-d', '-E', '-a', '--replace', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--delimiter', '--eof', '--arg-file'],
          flags: ['-0', '-r', '-t', '-p', '-x', '-i', '-e', '-l', '--null', '--no-run-if-empty', '--verbose', '--interactive', '--exit', '--open-tty'],
        });
        // Without a command xargs runs echo; with one, that command gets more arguments.
        rest = after;
        if (after !== undefined && after.length === 0) return { commands: seen, dynamic: undefined };
        break;
      }
      case 'eval': {
        if (!args.every(isStaticWord)) return { commands: seen, dynamic: 'eval of text computed when it runs' };
        const inner = effectiveCommandsOf(args.map((w) => w.value).join(' '), depth + 1);
        return { commands: [...seen, ...inner.commands], dynamic: inner.dynamic };
      }
      case 'source':
      case '.':
        return { commands: seen, dynamic: `${name} runs commands from a file` };
      default:
        if (SHELLS.has(name)) return unwrapShell(name, args, seen, depth);
        return { commands: seen, dynamic: undefined };
    }
    if (rest === undefined) return { commands: seen, dynamic: `${name} with options we cannot follow` };
  }
  return { commands: seen, dynamic: rest === undefined ? 'a wrapper with options we cannot follow' : 'too many wrappers to follow' };
}

/** `sh -c 'script'` runs the script; `sh file` or `sh` reading stdin runs what we cannot see. */
function unwrapShell(name: string, args: Words, seen: Array<ReadonlyArray<string | undefined>>, depth: number): EffectiveCommands {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!isStaticWord(word)) return { commands: seen, dynamic: `${name} with an argument computed when it runs` };
    if (word.value === '-c' || (/^-[a-z]*c[a-z]*$/.test(word.value) && !word.value.startsWith('--'))) {
      const script = args[i + 1];
      if (script === undefined || !isStaticWord(script)) return { commands: seen, dynamic: `${name} -c with a script computed when it runs` };
      const inner = effectiveCommandsOf(script.value, depth + 1);
      return { commands: [...seen, ...inner.commands], dynamic: inner.dynamic };
    }
    if (!word.value.startsWith('-')) break;
  }
  return { commands: seen, dynamic: `${name} runs a script we cannot see` };
}

interface OptionShape {
  readonly valued: readonly string[];
  readonly flags: readonly string[];
  /** Options that make the wrapper's command unknowable (`env -S 'a b'`). */
  readonly refuse?: readonly string[];
  /** `NAME=value` words may come before the command (env, sudo). */
  readonly assignments?: boolean;
  /** `-5` style numbers (nice). */
  readonly numeric?: boolean;
}

/** The words after a wrapper's own options; undefined when an option is not one we know. */
function skipOptions(args: Words, shape: OptionShape): Words | undefined {
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (!isStaticWord(word)) return word.value === undefined ? undefined : args.slice(i);
    const value = word.value;
    if (value === '--') return args.slice(i + 1);
    if (shape.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) continue;
    if (!value.startsWith('-') || value === '-') {
      if (value === '-' && shape.flags.includes('-')) continue;
      return args.slice(i);
    }
    const name = value.includes('=') ? value.slice(0, value.indexOf('=')) : value;
    if (shape.refuse?.some((r) => name === r || (r.length === 2 && value.startsWith(r)))) return undefined;
    if (shape.flags.includes(name)) continue;
    if (shape.numeric && /^-\d+$/.test(value)) continue;
    if (shape.valued.includes(name)) {
      if (!value.includes('=')) i++;
      continue;
    }
    const glued = shape.valued.find((v) => v.length === 2 && value.startsWith(v));
    if (glued !== undefined) continue;
    return undefined;
  }
  return args.slice(i);
}
