/**
 * Decides whether a shell command only reads: it may then run in parallel with other safe tools,
 * (in the default mode) without asking, and in a read-only sandbox. Classified on the syntax
 * tree of a real bash parser, by allowlist: every command is a listed program with listed
 * options; no substitution, expansion, assignment, subshell, loop, function or background job;
 * no option word that is not a fixed string; no glob that could expand to an option; redirections
 * only to /dev/null or from a file (whose path is then checked like any other).
 *
 * The result names the words that are paths, so `bashPaths` can confine them to the roots.
 */
import { FIND_PATH_PREDICATES, FIND_PREDICATES, GIT_READ_ONLY, READ_ONLY_PROGRAMS, type ProgramSpec } from './readOnlyPrograms.js';
import { isStaticWord, parseShell, type ShellWord, type SimpleCommand } from './shellParse.js';

/** One command of a read-only line, with the words that name files it reads. */
export interface ReadOnlyCommand {
  readonly program: string;
  readonly args: readonly string[];
  /** Operands and option values that are file paths (static, or a glob checked by bashPaths). */
  readonly paths: readonly ShellWord[];
  /** Operands counted (to tell `grep -r x` from `grep -r x dir`). */
  readonly operandCount: number;
}

/** Whether a command only reads, and if not, the first reason found. */
export type ReadOnlyVerdict = { readonly readOnly: true } | { readonly readOnly: false; readonly reason: string };

/** The verdict with the commands of a read-only line (for the path check). */
export type ReadOnlyAnalysis =
  | { readonly readOnly: true; readonly commands: readonly ReadOnlyCommand[] }
  | { readonly readOnly: false; readonly reason: string };

type Step = { readonly ok: true; readonly command: ReadOnlyCommand } | { readonly ok: false; readonly reason: string };
const refuse = (reason: string): Step => ({ ok: false, reason });

/** Classifies a command as read-only or not, saying why not (anything not understood is not read-only). */
export function classifyBashCommand(command: string): ReadOnlyVerdict {
  const analysis = analyzeBashCommand(command);
  return analysis.readOnly ? { readOnly: true } : analysis;
}

/** Classifies, keeping the read-only commands with their path words. */
export function analyzeBashCommand(command: string): ReadOnlyAnalysis {
  const parsed = parseShell(command);
  if (!parsed.ok) return { readOnly: false, reason: parsed.reason };
  const { commands, constructs } = parsed.script;
  if (constructs.length > 0) return { readOnly: false, reason: `it uses ${constructs[0]}, which may run or write anything` };
  if (commands.length === 0) return { readOnly: false, reason: 'empty command' };
  const result: ReadOnlyCommand[] = [];
  for (const simple of commands) {
    const step = classifySimple(simple);
    if (!step.ok) return { readOnly: false, reason: step.reason };
    result.push(step.command);
  }
  return { readOnly: true, commands: result };
}

/** True only when the whole command line is recognised as read-only. */
export function isReadOnlyBashCommand(command: string): boolean {
  return classifyBashCommand(command).readOnly;
}

function classifySimple(simple: SimpleCommand): Step {
  if (simple.assignments > 0) return refuse('variable assignment');
  const [name, ...rest] = simple.words;
  if (name === undefined || !isStaticWord(name)) return refuse('the command name is not a fixed word');
  const program = name.value;
  const paths: ShellWord[] = [];
  for (const redirect of simple.redirects) {
    const problem = redirectProblem(redirect, paths);
    if (problem) return refuse(problem);
  }
  let step: Step;
  if (program === 'git') step = classifyGit(rest);
  else if (program === 'find') step = classifyFind(rest);
  else {
    const spec = Object.hasOwn(READ_ONLY_PROGRAMS, program) ? READ_ONLY_PROGRAMS[program] : undefined;
    if (!spec) return refuse(`${program} is not on the read-only list`);
    step = classifyBySpec(program, spec, rest);
  }
  if (!step.ok) return step;
  return { ok: true, command: { ...step.command, paths: [...step.command.paths, ...paths] } };
}

function redirectProblem(redirect: SimpleCommand['redirects'][number], paths: ShellWord[]): string | undefined {
  const target = redirect.target;
  switch (redirect.kind) {
    case 'write':
      return isStaticWord(target) && target.value === '/dev/null' ? undefined : 'redirection of output to a file';
    case 'dup':
      return isStaticWord(target) && /^(\d+|-)$/.test(target.value) ? undefined : 'it redirects to a file descriptor we cannot see';
    case 'read':
      if (!isStaticWord(target) && !(target.value !== undefined && target.tilde && !target.glob && !target.brace)) return 'it reads input from a computed file name';
      paths.push(target);
      return undefined;
    case 'heredoc':
      return redirect.staticBody ? undefined : 'its here-document expands variables or commands';
    case 'herestring':
      return isStaticWord(target) ? undefined : 'its here-string expands something';
    case 'readwrite':
      return 'redirection that opens a file for writing';
  }
}

/** A word as a path operand: fixed, `~/…`, or a glob that cannot expand to an option. */
function pathWordProblem(word: ShellWord, afterDoubleDash: boolean): string | undefined {
  if (word.value === undefined) return 'an argument is computed when it runs';
  if (word.brace) return 'an argument uses brace expansion';
  if (word.tilde && !(word.value === '~' || word.value.startsWith('~/'))) return 'an argument uses tilde expansion';
  // `*` could expand to a file named `-rf` or `--exec=…`: a glob must start with a fixed part.
  if (word.glob && !afterDoubleDash && !/^[^*?[-]/.test(word.value)) return `the glob ${word.value} could expand to an option; write ./${word.value}`;
  return undefined;
}

function classifyBySpec(program: string, spec: ProgramSpec, args: readonly ShellWord[]): Step {
  const paths: ShellWord[] = [];
  const values: string[] = [];
  let operands = 0;
  let afterDoubleDash = false;
  let patternGiven = false;
  const operandWords: ShellWord[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!afterDoubleDash && word.value !== undefined && word.value.startsWith('-') && word.value !== '-') {
      if (!isStaticWord(word)) return refuse(`${program} has an option word that is not a fixed string`);
      const option = word.value;
      values.push(option);
      if (option === '--') {
        afterDoubleDash = true;
        continue;
      }
      if (spec.patternOptions?.some((p) => option === p || option.startsWith(`${p}=`) || (p.length === 2 && option.startsWith(p)))) patternGiven = true;
      const taken = optionProblem(program, spec, option, args[i + 1], paths);
      if (typeof taken === 'string') return refuse(taken);
      if (taken.consumedNext) {
        values.push(args[i + 1]?.value ?? '');
        i++;
      }
      continue;
    }
    if (word.value === undefined && !afterDoubleDash) return refuse(`${program} has an argument computed when it runs`);
    operands++;
    operandWords.push(word);
    if (word.value !== undefined) values.push(word.value);
  }
  for (const [index, word] of operandWords.entries()) {
    const kind = spec.operands === 'pattern-then-paths' ? (index === 0 && !patternGiven ? 'text' : 'paths') : spec.operands;
    switch (kind) {
      case 'paths': {
        const problem = pathWordProblem(word, afterDoubleDash);
        if (problem) return refuse(`${program}: ${problem}`);
        paths.push(word);
        break;
      }
      case 'text':
        if (!isStaticWord(word) && !(word.value !== undefined && program === 'echo')) return refuse(`${program} has an argument bash would expand`);
        break;
      case 'none':
        return refuse(`${program} takes no arguments here`);
      case 'numbers':
        if (!isStaticWord(word) || !/^\d+(\.\d+)?[smhd]?$/.test(word.value)) return refuse(`${program} takes a number`);
        break;
      case 'date-format':
        if (!isStaticWord(word) || !word.value.startsWith('+')) return refuse('date with an operand that is not +FORMAT may write: it sets the clock');
        break;
    }
  }
  if (program === 'cd' && operands > 1) return refuse('cd with more than one directory');
  return { ok: true, command: { program, args: values, paths, operandCount: operands } };
}

/** Checks one option word; says whether it took the next word as its value. */
function optionProblem(program: string, spec: ProgramSpec, option: string, next: ShellWord | undefined, paths: ShellWord[]): string | { consumedNext: boolean } {
  const takeNext = (isPath: boolean): string | { consumedNext: boolean } => {
    if (next === undefined) return `${program} ${option} is missing its value`;
    if (isPath) {
      const problem = pathWordProblem(next, false);
      if (problem) return `${program} ${option}: ${problem}`;
      paths.push(next);
    } else if (!isStaticWord(next)) {
      return `${program} ${option} has a value bash would expand`;
    }
    return { consumedNext: true };
  };
  if (option.startsWith('--')) {
    const eq = option.indexOf('=');
    const name = eq === -1 ? option : option.slice(0, eq);
    if (eq !== -1) {
      if (!spec.longValued?.includes(name)) return `${program} ${name} may write or run something: not an option it may be given here (options must be spelled out in full)`;
      if (spec.longPathValued?.includes(name)) paths.push({ value: option.slice(eq + 1), glob: false, brace: false, tilde: false });
      return { consumedNext: false };
    }
    if (spec.long?.includes(name)) return { consumedNext: false };
    if (spec.longValued?.includes(name)) return takeNext(spec.longPathValued?.includes(name) ?? false);
    return `${program} ${name} may write or run something: not an option it may be given here (options must be spelled out in full)`;
  }
  if (spec.numericFlag && /^-\d+$/.test(option)) return { consumedNext: false };
  // A cluster of short flags; a valued letter takes the rest of the word, or the next word.
  for (let j = 1; j < option.length; j++) {
    const letter = option[j]!;
    if (spec.flags.includes(letter)) continue;
    if (spec.valued?.includes(letter)) {
      const isPath = spec.pathValued?.includes(letter) ?? false;
      const glued = option.slice(j + 1);
      if (glued === '') return takeNext(isPath);
      if (isPath) paths.push({ value: glued, glob: false, brace: false, tilde: false });
      return { consumedNext: false };
    }
    return `${program} -${letter} may write or run something: not an option it may be given here`;
  }
  return { consumedNext: false };
}

function classifyFind(args: readonly ShellWord[]): Step {
  const paths: ShellWord[] = [];
  const values: string[] = [];
  let i = 0;
  // Leading -P (never follow) is harmless; -H/-L follow symlinks out and are not listed.
  while (i < args.length && isStaticWord(args[i]!) && ['-P', '-O0', '-O1', '-O2', '-O3'].includes(args[i]!.value!)) values.push(args[i++]!.value!);
  let operands = 0;
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (word.value === undefined) return refuse('find has an argument computed when it runs');
    if (/^[-!(),]/.test(word.value)) break;
    const problem = pathWordProblem(word, false);
    if (problem) return refuse(`find: ${problem}`);
    paths.push(word);
    values.push(word.value);
    operands++;
  }
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (!isStaticWord(word)) return refuse('find has an expression word that is not a fixed string');
    const arity = Object.hasOwn(FIND_PREDICATES, word.value) ? FIND_PREDICATES[word.value] : undefined;
    if (arity === undefined) return refuse(`find ${word.value} may write or run something: not an expression it may be given here`);
    values.push(word.value);
    if (arity === 1) {
      const value = args[i + 1];
      if (value === undefined || value.value === undefined || value.brace) return refuse(`find ${word.value} is missing a fixed value`);
      if (FIND_PATH_PREDICATES.has(word.value)) {
        const problem = pathWordProblem(value, false);
        if (problem) return refuse(`find ${word.value}: ${problem}`);
        paths.push(value);
      }
      values.push(value.value);
      i++;
    }
  }
  return { ok: true, command: { program: 'find', args: values, paths, operandCount: operands } };
}

function classifyGit(args: readonly ShellWord[]): Step {
  const [sub, ...rest] = args;
  // No global options (`-c core.pager=…`, `-C dir`, `--git-dir`, `--exec-path`): subcommand first.
  if (sub === undefined || !isStaticWord(sub)) return refuse('git without a fixed subcommand');
  const spec = Object.hasOwn(GIT_READ_ONLY, sub.value) ? GIT_READ_ONLY[sub.value] : undefined;
  if (!spec) return refuse(`git ${sub.value} is not on the read-only list (it may write)`);
  const values: string[] = [sub.value];
  // Operands are revisions or paths; as paths they must stay inside (`git diff /etc/x /dev/null`
  // compares files outside the repository). A revision like `HEAD~2` resolves inside anyway.
  const paths: ShellWord[] = [];
  let afterDoubleDash = false;
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (!isStaticWord(word)) return refuse(`git ${sub.value} has an argument bash would expand`);
    const value = word.value;
    values.push(value);
    if (afterDoubleDash || !value.startsWith('-')) {
      if (!spec.operands) return refuse(`git ${sub.value} with an operand may write (it could create something)`);
      paths.push(word);
      continue;
    }
    if (value === '--') {
      afterDoubleDash = true;
      continue;
    }
    if (/^-\d+$/.test(value) && spec.valued.includes('-n')) continue;
    const eq = value.indexOf('=');
    const name = eq === -1 ? value : value.slice(0, eq);
    if (eq !== -1 ? spec.valued.includes(name) : spec.flags.includes(name)) continue;
    if (eq === -1 && spec.valued.includes(name)) {
      const next = rest[i + 1];
      if (next === undefined || !isStaticWord(next)) return refuse(`git ${sub.value} ${name} is missing a fixed value`);
      values.push(next.value);
      i++;
      continue;
    }
    if (/^-n\d+$/.test(value) && spec.valued.includes('-n')) continue;
    return refuse(`git ${sub.value} ${name} may write or run something: not an option it may be given here (options must be spelled out in full)`);
  }
  return { ok: true, command: { program: 'git', args: values, paths, operandCount: paths.length } };
}
