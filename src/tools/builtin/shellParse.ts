/**
 * Shell commands parsed by a real bash parser: mvdan/sh (the `mvdan-sh` package, the Go parser
 * compiled to JavaScript), not a hand-written tokenizer. It is synchronous, which the permission
 * check and `isConcurrencySafe` need (`sh-syntax`, the same parser as WebAssembly, is async only).
 *
 * The result is deliberately plain: every simple command anywhere in the script (inside
 * substitutions, loops and functions too, so deny rules see them), each word's value after quote
 * removal when bash would give it a fixed value, and the list of constructs beyond "pipelines of
 * simple commands joined by `&&`, `||`, `;`" that the read-only check refuses outright.
 */
import { createRequire } from 'node:module';

/** One word of a command as bash will see it. */
export interface ShellWord {
  /** The value after quote removal; undefined when bash computes it when it runs (`$x`, `$(…)`, `$'…'`). */
  readonly value: string | undefined;
  /** An unquoted `*`, `?` or `[`: bash may replace the word by file names. */
  readonly glob: boolean;
  /** An unquoted `{…}`: brace expansion may turn it into several words. */
  readonly brace: boolean;
  /** An unquoted `~` at the start or after `=`/`:`: tilde expansion. */
  readonly tilde: boolean;
}

/** Redirection operators, by what they do. */
export type RedirectKind = 'write' | 'read' | 'readwrite' | 'dup' | 'heredoc' | 'herestring';

export interface ShellRedirect {
  readonly kind: RedirectKind;
  readonly target: ShellWord;
  /** For a here-document: whether its body is free of expansions. */
  readonly staticBody?: boolean;
}

/** A simple command: `A=1 prog arg… >file`. Declarations (`export`, `local`, …) have their keyword as first word. */
export interface SimpleCommand {
  readonly words: readonly ShellWord[];
  readonly assignments: number;
  readonly redirects: readonly ShellRedirect[];
}

export interface ShellScript {
  /** Every simple command in the script, in source order, wherever it is nested. */
  readonly commands: readonly SimpleCommand[];
  /** Constructs other than pipelines/lists of simple commands (`subshell`, `command substitution`, `background job`, …). */
  readonly constructs: readonly string[];
}

export type ShellParse = { readonly ok: true; readonly script: ShellScript } | { readonly ok: false; readonly reason: string };

/**
 * Longest command the parser is given. Parsing is linear (about 5 µs a character here), so this
 * bounds how long one permission check holds the event loop; longer commands are not classified
 * and so ask.
 */
export const MAX_PARSED_COMMAND_CHARS = 10_000;

/**
 * Most syntax nodes a command may have to be classified. Reading the tree is the slow part
 * (each node crosses from the compiled Go into JavaScript: tens of µs), and a command of many
 * tiny words (`cat a* a* a* …`) has a node every two characters; the cap keeps one check to a
 * bounded, short hold of the event loop. About 1,000 words; ordinary commands have dozens.
 */
export const MAX_SYNTAX_NODES = 2_500;

/* The parts of mvdan/sh's syntax tree we read (see pkg.go.dev/mvdan.cc/sh/v3/syntax). */
interface ShNode {
  readonly [field: string]: unknown;
}
interface ShSyntax {
  NewParser(...options: unknown[]): { Parse(src: string, name: string): ShNode };
  NodeType(node: ShNode): string;
  Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
  Variant(lang: unknown): unknown;
  KeepComments(keep: boolean): unknown;
  readonly LangBash: unknown;
}

let shSyntax: ShSyntax | undefined;
let parser: ReturnType<ShSyntax['NewParser']> | undefined;

/** Loaded on first use: the compiled parser is 1.5 MB of JavaScript (~100 ms to load). */
function loadSyntax(): ShSyntax {
  shSyntax ??= (createRequire(import.meta.url)('mvdan-sh') as { syntax: ShSyntax }).syntax;
  return shSyntax;
}

/* Operator codes of mvdan/sh's syntax package (token.go). */
const BINARY_AND = 10;
const BINARY_OR = 11;
const BINARY_PIPE = 12;
const BINARY_PIPE_ALL = 13;
const REDIRECT_KINDS: Readonly<Record<number, RedirectKind>> = {
  54: 'write', // >
  55: 'write', // >>
  56: 'read', // <
  57: 'readwrite', // <>
  58: 'dup', // <&
  59: 'dup', // >&
  60: 'write', // >|
  61: 'heredoc', // <<
  62: 'heredoc', // <<-
  63: 'herestring', // <<<
  64: 'write', // &>
  65: 'write', // &>>
};

/** Node types a plain list of simple commands is made of; any other is a construct. */
const PLAIN_NODES = new Set(['File', 'Stmt', 'CallExpr', 'Word', 'Lit', 'SglQuoted', 'DblQuoted', 'Redirect']);
const CONSTRUCT_NAMES: Readonly<Record<string, string>> = {
  CmdSubst: 'command substitution',
  ProcSubst: 'process substitution',
  ParamExp: 'parameter expansion',
  ArithmExp: 'arithmetic expansion',
  ArithmCmd: 'arithmetic command',
  Subshell: 'subshell',
  Block: 'command group',
  IfClause: 'if',
  WhileClause: 'loop',
  ForClause: 'loop',
  CaseClause: 'case',
  FuncDecl: 'function definition',
  DeclClause: 'declaration',
  LetClause: 'let',
  TimeClause: 'time',
  CoprocClause: 'coprocess',
  TestClause: 'test',
  ExtGlob: 'extended glob',
  BraceExp: 'brace expansion',
  Assign: 'variable assignment',
};

/**
 * The last parses, by command text. One permission decision asks about the same command many
 * times (each Bash deny/ask rule, the read-only check, the path check, the Read-rule check, the
 * sandbox's excluded commands, concurrency safety), and mvdan-sh is slow and allocates a lot
 * (about 50 µs and several objects a character for words full of globs): parsed once, the
 * decision stays linear in the command's size. Results are plain read-only data, safe to share.
 */
const recentParses = new Map<string, ShellParse>();
const RECENT_PARSES_KEPT = 16;

/** Parses a bash command line. Never throws: a parse failure or an over-long command is a reason. */
export function parseShell(command: string): ShellParse {
  const known = recentParses.get(command);
  if (known !== undefined) {
    recentParses.delete(command); // most recently used last
    recentParses.set(command, known);
    return known;
  }
  const parsed = parseUncached(command);
  recentParses.set(command, parsed);
  if (recentParses.size > RECENT_PARSES_KEPT) recentParses.delete(recentParses.keys().next().value as string);
  return parsed;
}

function parseUncached(command: string): ShellParse {
  if (command.length > MAX_PARSED_COMMAND_CHARS) {
    return { ok: false, reason: `the command is longer than ${MAX_PARSED_COMMAND_CHARS} characters, too long to check` };
  }
  if (command.includes('\0')) return { ok: false, reason: 'the command contains a NUL character' };
  // Bash reads a backslash at the very end of its input differently depending on what came
  // before (kept after `'a'`, dropped after a quoted newline): refuse rather than guess.
  if (/(^|[^\\])(\\\\)*\\$/.test(command)) return { ok: false, reason: 'the command ends with a lone backslash' };
  // mvdan-sh ends a word at `$\<newline>` where bash first removes the continuation and then
  // expands: `$\<newline>#` is bash's `$#` but the parser's `$` and a comment that hides the rest
  // of the line (`; rm …`). Whatever follows, refuse rather than guess which way it splits.
  if (/\$(\\\n)+/.test(command)) return { ok: false, reason: 'a line continuation follows a $ (bash joins them into an expansion)' };
  const sh = loadSyntax();
  let file: ShNode;
  try {
    parser ??= sh.NewParser(sh.KeepComments(true), sh.Variant(sh.LangBash));
    file = parser.Parse(command, '');
  } catch (error) {
    parser = undefined; // a fresh parser after a failure: never reuse a half-updated one
    return { ok: false, reason: `bash would not parse it the way it reads: ${describeParseError(error)}` };
  }
  const commands: SimpleCommand[] = [];
  const constructs = new Set<string>();
  // Redirections hang off the statement; the walk visits a statement's command right after the
  // statement itself, so they are handed to the next simple command. (Node wrappers are fresh
  // objects on every access, so they cannot be matched by identity.)
  let pendingRedirects: ShellRedirect[] = [];
  let continuedComment = false;
  let nodes = 0;
  try {
    sh.Walk(file, (node) => {
      if (node === null) return true;
      // Past the cap the walk is abandoned (the compiled Go hands a thrown error back wrapped,
      // so the count, not the error, says why it ended).
      if (++nodes > MAX_SYNTAX_NODES) throw new Error('too many syntax nodes');
      const type = sh.NodeType(node);
      if (type === 'CallExpr') {
        const args = node['Args'] as ShNode[];
        const assigns = (node['Assigns'] as ShNode[]).length;
        if (assigns > 0) constructs.add('variable assignment');
        if (args.length > 0 || assigns > 0) {
          commands.push({ words: args.map((w) => wordOf(sh, w)), assignments: assigns, redirects: pendingRedirects });
        } else if (pendingRedirects.length > 0) {
          constructs.add('redirection without a command');
        }
        pendingRedirects = [];
      } else if (type === 'DeclClause') {
        // `export X=$(…)`, `local x`: the keyword runs like a command; its arguments are assignments.
        const variant = (node['Variant'] as ShNode)['Value'] as string;
        commands.push({ words: [{ value: variant, glob: false, brace: false, tilde: false }], assignments: 1, redirects: [] });
      } else if (type === 'Stmt') {
        if (node['Background'] === true) constructs.add('background job');
        if (node['Coprocess'] === true) constructs.add('coprocess');
        const redirects = (node['Redirs'] as ShNode[]).map((r) => redirectOf(sh, r));
        const cmd = node['Cmd'] as ShNode | null;
        if (cmd !== null && cmd !== undefined && sh.NodeType(cmd) === 'CallExpr') pendingRedirects = redirects;
        else if (redirects.length > 0) constructs.add('redirection of a compound command');
      } else if (type === 'BinaryCmd') {
        const op = node['Op'] as number;
        if (op !== BINARY_AND && op !== BINARY_OR && op !== BINARY_PIPE && op !== BINARY_PIPE_ALL) constructs.add('operator');
      } else if (type === 'Comment') {
        // Bash ends a comment at the newline whatever precedes it; mvdan-sh lets a backslash
        // continue it, so `ls # \<newline>rm -rf x` reads to it as one `ls` command.
        // The command list itself is wrong then, so this is a refusal, not a construct.
        if (/\\\n/.test(node['Text'] as string)) continuedComment = true;
      } else if (type === 'SglQuoted' || type === 'DblQuoted') {
        if (node['Dollar'] === true) constructs.add(type === 'SglQuoted' ? "$'…' quoting" : '$"…" quoting');
      } else if (!PLAIN_NODES.has(type)) {
        constructs.add(CONSTRUCT_NAMES[type] ?? type);
      }
      return true;
    });
  } catch (error) {
    if (nodes > MAX_SYNTAX_NODES) return { ok: false, reason: `the command has more than ${MAX_SYNTAX_NODES} syntax parts, too many to check` };
    return { ok: false, reason: `the command is too deeply nested to check (${describeParseError(error)})` };
  }
  if (continuedComment) return { ok: false, reason: 'a comment ends in a backslash (bash ends it at the newline, the parser does not)' };
  return { ok: true, script: { commands, constructs: [...constructs] } };
}

function redirectOf(sh: ShSyntax, node: ShNode): ShellRedirect {
  const kind = REDIRECT_KINDS[node['Op'] as number] ?? 'readwrite';
  const target = wordOf(sh, node['Word'] as ShNode);
  if (kind !== 'heredoc') return { kind, target };
  const body = node['Hdoc'] as ShNode | null;
  // With a quoted delimiter bash takes the body as it is. Unquoted, it expands `$…` and `` `…` ``
  // after joining continuation lines, and mvdan-sh splits `$\<newline>(id)` there into plain
  // literals: so any `$`, backtick or backslash in such a body counts as an expansion.
  const quoted = ((node['Word'] as ShNode)['Parts'] as ShNode[]).some((p) => sh.NodeType(p) !== 'Lit' || (p['Value'] as string).includes('\\'));
  const staticBody =
    body === null ||
    (body['Parts'] as ShNode[]).every((p) => {
      const type = sh.NodeType(p);
      if (type === 'SglQuoted') return true;
      return type === 'Lit' && (quoted || !/[$`\\]/.test(p['Value'] as string));
    });
  return { kind, target, staticBody };
}

/** A word's value after quote removal, and which expansions bash will still apply to it. */
export function wordOf(sh: ShSyntax, word: ShNode): ShellWord {
  let value: string | undefined = '';
  let glob = false;
  let braceOpen = false;
  let brace = false;
  let tilde = false;
  const parts = word['Parts'] as ShNode[];
  parts.forEach((part, partIndex) => {
    const type = sh.NodeType(part);
    if (type === 'Lit') {
      const raw = part['Value'] as string;
      for (let i = 0; i < raw.length; i++) {
        let c = raw[i]!;
        if (c === '\\') {
          // Only at the very end of the input can a backslash end a literal; bash keeps it.
          if (i + 1 >= raw.length) {
            if (value !== undefined) value += c;
            continue;
          }
          c = raw[++i]!;
          if (c === '\n') continue; // a line continuation is removed, not kept
          if (value !== undefined) value += c;
          continue;
        }
        if (c === '*' || c === '?' || c === '[') glob = true;
        if (c === '{') braceOpen = true;
        if (c === '}' && braceOpen) brace = true;
        if (c === '~') {
          const before = value === undefined ? '' : value;
          if ((partIndex === 0 && i === 0) || before.endsWith('=') || before.endsWith(':')) tilde = true;
        }
        if (value !== undefined) value += c;
      }
      if (endsWithBareDollar(raw) && partIndex < parts.length - 1) value = undefined;
    } else if (type === 'SglQuoted' && part['Dollar'] !== true) {
      if (value !== undefined) value += part['Value'] as string;
    } else if (type === 'DblQuoted' && part['Dollar'] !== true) {
      const inners = part['Parts'] as ShNode[];
      inners.forEach((inner, innerIndex) => {
        if (sh.NodeType(inner) !== 'Lit') {
          value = undefined;
          return;
        }
        const raw = inner['Value'] as string;
        if (endsWithBareDollar(raw) && innerIndex < inners.length - 1) value = undefined;
        if (value !== undefined) value += unescapeDoubleQuoted(raw);
      });
    } else {
      value = undefined;
    }
  });
  return { value, glob, brace, tilde };
}

/**
 * A literal that ends in an unescaped `$` and is followed by more of the same word. mvdan-sh
 * splits `$\<newline>HOME` (and `"$\<newline>(id)"`) into the literals `$` and `HOME`, while
 * bash removes the line continuation first and expands `$HOME`; the parser's split is the only
 * sign of it, so such a word is treated as expanding rather than as the text `$HOME`.
 */
function endsWithBareDollar(raw: string): boolean {
  if (!raw.endsWith('$')) return false;
  let backslashes = 0;
  for (let i = raw.length - 2; i >= 0 && raw[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 0;
}

/** Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline (which it removes). */
function unescapeDoubleQuoted(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    const next = raw[i + 1];
    if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      if (next !== '\n') out += next;
      i++;
      continue;
    }
    out += c;
  }
  return out;
}

function describeParseError(error: unknown): string {
  if (error instanceof Error) return error.message;
  const go = error as { Error?: () => string } | null;
  if (go && typeof go.Error === 'function') return go.Error();
  return String(error);
}

/** A word with a fixed value and no expansion left: safe to compare as text. */
export function isStaticWord(word: ShellWord): word is ShellWord & { readonly value: string } {
  return word.value !== undefined && !word.glob && !word.brace && !word.tilde;
}

/** The program names of every command in a line (for `sandbox.excludedCommands`); undefined when it does not parse. */
export function commandNamesOf(command: string): string[] | undefined {
  const parsed = parseShell(command);
  if (!parsed.ok) return undefined;
  return parsed.script.commands.flatMap((c) => (c.words[0]?.value === undefined ? [] : [c.words[0].value]));
}
