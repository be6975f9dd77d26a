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
/**
 * Programs that run another command line in a shape not followed here (a lock file first, a
 * priority, a user, a shell string joined from their arguments): any deny rule could match
 * what they run, so a line with one asks.
 */
const RUNS_OTHERS = new Set([
  'flock', 'chrt', 'watch', 'script', 'su', 'runuser', 'sg', 'newgrp', 'pkexec', 'parallel', 'unshare', 'nsenter',
  'chroot', 'setpriv', 'strace', 'ltrace', 'unbuffer', 'systemd-run', 'firejail', 'bwrap', 'proot', 'fakeroot', 'torsocks', 'proxychains',
]);
const MAX_DEPTH = 8;
const SHELL_STARTUP_VARIABLES = /\b(BASH_ENV|ENV|BASH_FUNC_[^=\s]*|SHELLOPTS|BASHOPTS|PS[0124]|PROMPT_COMMAND|BASH_LOADABLES_PATH)\s*[=+]/;

/** The effective commands of a line (see the file head). */
export function effectiveCommandsOf(command: string, depth = 0): EffectiveCommands {
  if (depth > MAX_DEPTH) return { commands: [], dynamic: 'shells nested too deeply to follow' };
  const parsed = parseShell(command);
  if (!parsed.ok) return { commands: [], dynamic: parsed.reason };
  // A variable a shell reads at start (a file to source, functions to import, options, a prompt
  // it expands) makes any later shell, ours included, run what no word of the line shows.
  const startup = SHELL_STARTUP_VARIABLES.exec(command);
  if (startup) return { commands: [], dynamic: `${startup[1]} makes a shell run commands the line does not show` };
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
        rest = skipOptions(args, { valued: [], flags: [] }); // `nohup -- rm x` runs rm
        break;
      case 'setsid':
        rest = skipOptions(args, { valued: [], flags: ['-c', '-f', '-w', '--ctty', '--fork', '--wait'] });
        break;
      case 'ionice':
        rest = skipOptions(args, { valued: ['-c', '-n', '--class', '--classdata'], flags: ['-t', '--ignore'] });
        break;
      case 'taskset':
        rest = skipOptions(args, { valued: [], flags: ['-c', '--cpu-list', '-a', '--all-tasks'] })?.slice(1); // the mask
        break;
      case 'trap': {
        // The action is a script bash runs later (EXIT, DEBUG, ERR, a signal): follow it as eval's text.
        const action = args[0]?.value === '--' ? args[1] : args[0];
        if (action === undefined || /^-[lp]$/.test(action.value ?? '')) return { commands: seen, dynamic: undefined };
        if (!isStaticWord(action)) return { commands: seen, dynamic: 'trap of text computed when it runs' };
        const inner = effectiveCommandsOf(action.value, depth + 1);
        return { commands: [...seen, ...inner.commands], dynamic: inner.dynamic };
      }
      case 'find':
        return unwrapFind(args, seen, depth);
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
      // Builtins that make a later word run something else: a callback, an alias, a hashed path, a loaded builtin.
      case 'mapfile':
      case 'readarray':
        if (args.some((w) => !isStaticWord(w) || /^-[^-]*C/.test(w.value))) return { commands: seen, dynamic: `${name} -C runs a callback` };
        return { commands: seen, dynamic: undefined };
      case 'alias':
      case 'hash':
      case 'enable':
        return { commands: seen, dynamic: `${name} changes what a later command name runs` };
      case 'shopt':
        if (args.some((w) => !isStaticWord(w) || w.value === 'expand_aliases')) return { commands: seen, dynamic: 'aliases expanded in a script' };
        return { commands: seen, dynamic: undefined };
      default:
        if (SHELLS.has(name)) return unwrapShell(name, args, seen, depth);
        if (RUNS_OTHERS.has(name)) return { commands: seen, dynamic: `${name} runs a command line we do not follow` };
        return { commands: seen, dynamic: undefined };
    }
    if (rest === undefined) return { commands: seen, dynamic: `${name} with options we cannot follow` };
  }
  return { commands: seen, dynamic: rest === undefined ? 'a wrapper with options we cannot follow' : 'too many wrappers to follow' };
}

/**
 * `sh -c 'script'` runs the script: the first word that is not an option, wherever `-c` stood
 * (`sh -c -- 'rm x'`, `bash -c -e 'rm x'`, `bash -o errexit -c 'rm x'`). `sh file` or `sh`
 * reading stdin runs what we cannot see.
 */
function unwrapShell(name: string, args: Words, seen: Array<ReadonlyArray<string | undefined>>, depth: number): EffectiveCommands {
  let command = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!isStaticWord(word)) return { commands: seen, dynamic: `${name} with an argument computed when it runs` };
    const value = word.value;
    const script = (at: number): EffectiveCommands => {
      const text = args[at];
      if (text === undefined || !isStaticWord(text)) return { commands: seen, dynamic: `${name} -c with a script computed when it runs` };
      const inner = effectiveCommandsOf(text.value, depth + 1);
      return { commands: [...seen, ...inner.commands], dynamic: inner.dynamic };
    };
    if (value === '--' || value === '-') return command ? script(i + 1) : { commands: seen, dynamic: `${name} runs a script we cannot see` };
    if (value.startsWith('--')) {
      if (value === '--rcfile' || value === '--init-file') i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(value)) {
      if (value.startsWith('-') && value.includes('c')) command = true;
      // -o/+o and -O/+O take the option name as the next word.
      if (/[oO]/.test(value)) i++;
      continue;
    }
    return command ? script(i) : { commands: seen, dynamic: `${name} runs a script we cannot see` };
  }
  return { commands: seen, dynamic: `${name} runs a script we cannot see` };
}

/** `find … -exec cmd … ;` (and -execdir, -ok, -okdir) runs cmd: each such command is followed. */
function unwrapFind(args: Words, seen: Array<ReadonlyArray<string | undefined>>, depth: number): EffectiveCommands {
  const commands = [...seen];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!isStaticWord(word)) {
      // A computed word could be -exec: nothing after it can be shown not to run.
      return { commands, dynamic: 'find with a word computed when it runs' };
    }
    if (!/^-(exec|execdir|ok|okdir)$/.test(word.value)) continue;
    let end = i + 1;
    while (end < args.length && !(isStaticWord(args[end]!) && (args[end]!.value === ';' || args[end]!.value === '+'))) end++;
    const inner = unwrap(args.slice(i + 1, end), depth);
    commands.push(...inner.commands.slice(0));
    if (inner.dynamic !== undefined) return { commands, dynamic: inner.dynamic };
    i = end;
  }
  return { commands, dynamic: undefined };
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
