/**
 * The allowlist behind read-only classification: programs that only read, each with the options
 * it may be given. Anything not listed (program, option, or spelling) is not read-only.
 *
 * Long options must be spelled out exactly: GNU getopt accepts any unambiguous prefix
 * (`date --se` is `date --set`, `file --comp` is `file --compile`), and an exact match of a
 * listed full name is the only spelling getopt cannot read as something else.
 */

/** How a program's operands are used: file paths (checked to stay in the roots), plain text, or custom. */
export type OperandKind = 'paths' | 'text' | 'pattern-then-paths' | 'none' | 'date-format' | 'numbers';

export interface ProgramSpec {
  /** Short option letters that take no value. */
  readonly flags: string;
  /** Short option letters that take a value (glued `-n5` or next word `-n 5`). */
  readonly valued?: string;
  /** Of `valued`, the letters whose value is a file path. */
  readonly pathValued?: string;
  /** Long options without a value. */
  readonly long?: readonly string[];
  /** Long options with a value (`--x=v` or `--x v`). */
  readonly longValued?: readonly string[];
  /** Of `longValued`, the ones whose value is a file path. */
  readonly longPathValued?: readonly string[];
  readonly operands: OperandKind;
  /** Legacy `-5` (head/tail): a dash and digits is a count. */
  readonly numericFlag?: boolean;
  /**
   * Options after which no operand is the pattern, so every operand is a path: a pattern given
   * as an option (`-e`, `-f`), or no pattern at all (`rg --files`, which lists the operands).
   */
  readonly patternOptions?: readonly string[];
}

const GREP_LONG = ['--extended-regexp', '--fixed-strings', '--basic-regexp', '--perl-regexp', '--ignore-case', '--no-ignore-case', '--invert-match', '--word-regexp', '--line-regexp', '--count', '--files-with-matches', '--files-without-match', '--only-matching', '--quiet', '--silent', '--no-messages', '--byte-offset', '--with-filename', '--no-filename', '--line-number', '--initial-tab', '--null', '--null-data', '--recursive', '--text', '--color', '--colour'];

export const READ_ONLY_PROGRAMS: Readonly<Record<string, ProgramSpec>> = {
  ls: {
    flags: 'aAbBcCdfFgGhiklmnNopqQrRsStuUvxX1Z',
    valued: 'wIT',
    long: ['--all', '--almost-all', '--human-readable', '--recursive', '--classify', '--directory', '--reverse', '--size', '--inode', '--numeric-uid-gid', '--group-directories-first', '--full-time', '--no-group', '--color', '--literal', '--escape', '--quote-name'],
    longValued: ['--color', '--sort', '--time', '--format', '--time-style', '--width', '--ignore', '--hide', '--block-size', '--indicator-style', '--quoting-style'],
    operands: 'paths',
  },
  cat: { flags: 'AbeEnstTuv', long: ['--number', '--show-all', '--number-nonblank', '--squeeze-blank', '--show-ends', '--show-tabs', '--show-nonprinting'], operands: 'paths' },
  head: { flags: 'qvz', valued: 'nc', long: ['--quiet', '--silent', '--verbose', '--zero-terminated'], longValued: ['--lines', '--bytes'], operands: 'paths', numericFlag: true },
  tail: { flags: 'qvz', valued: 'nc', long: ['--quiet', '--silent', '--verbose', '--zero-terminated'], longValued: ['--lines', '--bytes'], operands: 'paths', numericFlag: true },
  wc: { flags: 'clmwL', long: ['--bytes', '--chars', '--lines', '--words', '--max-line-length'], operands: 'paths' },
  grep: {
    flags: 'EFGPiyvwxcLloqsbHhnTZzrUaI',
    valued: 'efABCmdD',
    pathValued: 'f',
    long: GREP_LONG,
    longValued: ['--regexp', '--file', '--after-context', '--before-context', '--context', '--max-count', '--include', '--exclude', '--exclude-dir', '--binary-files', '--color', '--colour', '--devices', '--directories', '--label'],
    longPathValued: ['--file'],
    operands: 'pattern-then-paths',
    patternOptions: ['-e', '-f', '--regexp', '--file'],
  },
  // No -z/--search-zip (runs decompressors), no --pre (runs any program), no -L (follows links out).
  rg: {
    flags: 'iSsFwxvclnNHIuUqoh0.',
    valued: 'egtTABCmMjf',
    pathValued: 'f',
    long: ['--ignore-case', '--smart-case', '--case-sensitive', '--fixed-strings', '--word-regexp', '--line-regexp', '--invert-match', '--count', '--count-matches', '--files', '--files-with-matches', '--files-without-match', '--line-number', '--no-line-number', '--with-filename', '--no-filename', '--hidden', '--no-ignore', '--no-heading', '--heading', '--json', '--only-matching', '--quiet', '--vimgrep', '--column', '--no-messages', '--null', '--multiline', '--sort-files', '--stats', '--trim', '--color', '--no-config'],
    longValued: ['--regexp', '--glob', '--iglob', '--type', '--type-not', '--after-context', '--before-context', '--context', '--max-count', '--max-depth', '--max-columns', '--threads', '--sort', '--sortr', '--color', '--colors', '--file', '--max-filesize', '--encoding'],
    longPathValued: ['--file'],
    operands: 'pattern-then-paths',
    patternOptions: ['-e', '-f', '--regexp', '--file', '--files'],
  },
  echo: { flags: 'neE', operands: 'text' },
  pwd: { flags: 'LP', operands: 'none' },
  sleep: { flags: '', operands: 'numbers' },
  which: { flags: 'as', operands: 'text' },
  // No -C/--compile (writes a magic file), -m (reads any magic file), -z/-Z (decompressors), -f (name list).
  file: { flags: 'bchiLkNnprsv0', long: ['--brief', '--mime', '--mime-type', '--mime-encoding', '--dereference', '--no-dereference', '--keep-going', '--no-pad', '--print0', '--raw', '--special-files', '--preserve-date'], operands: 'paths' },
  stat: { flags: 'LftZ', valued: 'c', long: ['--dereference', '--file-system', '--terse'], longValued: ['--format', '--printf'], operands: 'paths' },
  du: {
    flags: 'abchklmsSx0',
    valued: 'dBt',
    long: ['--all', '--apparent-size', '--bytes', '--total', '--human-readable', '--summarize', '--separate-dirs', '--one-file-system', '--null', '--si', '--inodes'],
    longValued: ['--max-depth', '--block-size', '--threshold', '--exclude', '--time', '--time-style'],
    operands: 'paths',
  },
  df: { flags: 'ahHiklPT', valued: 'tx', long: ['--all', '--human-readable', '--inodes', '--local', '--print-type', '--total', '--portability', '--si'], longValued: ['--type', '--exclude-type', '--output', '--block-size'], operands: 'paths' },
  // Operands must be `+FORMAT`: any other operand sets the clock. No -s/--set.
  date: { flags: 'uRI', valued: 'dr', pathValued: 'r', long: ['--utc', '--universal', '--rfc-email', '--iso-8601', '--debug'], longValued: ['--date', '--reference', '--iso-8601', '--rfc-3339'], longPathValued: ['--reference'], operands: 'date-format' },
  cd: { flags: 'LP', operands: 'paths' },
};

/**
 * `find`'s expression: tests and actions that only read or print to stdout, and how many words
 * each takes. No -exec/-execdir/-ok/-okdir (run programs), -delete, -fprint*, -fls (write files).
 */
export const FIND_PREDICATES: Readonly<Record<string, number>> = {
  '-name': 1, '-iname': 1, '-path': 1, '-ipath': 1, '-wholename': 1, '-iwholename': 1, '-lname': 1, '-ilname': 1,
  '-regex': 1, '-iregex': 1, '-regextype': 1, '-type': 1, '-xtype': 1, '-maxdepth': 1, '-mindepth': 1, '-size': 1,
  '-mtime': 1, '-mmin': 1, '-atime': 1, '-amin': 1, '-ctime': 1, '-cmin': 1, '-newer': 1, '-anewer': 1, '-cnewer': 1,
  '-perm': 1, '-user': 1, '-group': 1, '-uid': 1, '-gid': 1, '-links': 1, '-inum': 1, '-samefile': 1, '-printf': 1, '-used': 1,
  '-empty': 0, '-print': 0, '-print0': 0, '-ls': 0, '-prune': 0, '-quit': 0, '-true': 0, '-false': 0, '-readable': 0,
  '-writable': 0, '-executable': 0, '-nouser': 0, '-nogroup': 0, '-daystart': 0, '-depth': 0, '-xdev': 0, '-mount': 0,
  '-not': 0, '!': 0, '-a': 0, '-and': 0, '-o': 0, '-or': 0, '(': 0, ')': 0, ',': 0, '-noleaf': 0,
};
/** Of the find predicates, those whose value is a path (compared with, so read). */
export const FIND_PATH_PREDICATES = new Set(['-newer', '-anewer', '-cnewer', '-samefile']);

/** git subcommands that only read, and options each may have (exact spellings; `-n`-style counts allowed). */
const GIT_LOG_LIKE_FLAGS = [
  '--oneline', '--stat', '--shortstat', '--numstat', '--name-only', '--name-status', '--graph', '--decorate', '--no-decorate',
  '--all', '--patch', '-p', '-u', '--no-patch', '-s', '--cached', '--staged', '--color', '--no-color', '--reverse', '--merges',
  '--no-merges', '--first-parent', '--abbrev-commit', '--no-abbrev-commit', '--summary', '--raw', '--word-diff', '--ignore-all-space',
  '-w', '--ignore-space-change', '-b', '--minimal', '--full-diff', '--follow', '--no-renames', '--find-renames', '-M', '--quiet',
  '--exit-code', '--check', '--unified', '--relative', '--date-order', '--topo-order', '--left-right', '--source', '--full-history',
  '--no-ext-diff', '--no-textconv', '--binary',
];
const GIT_LOG_LIKE_VALUED = ['--format', '--pretty', '--author', '--committer', '--since', '--until', '--after', '--before', '--grep', '--max-count', '-n', '--skip', '--date', '--diff-filter', '--unified', '-U', '--abbrev', '--color', '--stat', '--decorate', '--word-diff', '--relative', '--find-renames'];

export interface GitSubcommandSpec {
  readonly flags: readonly string[];
  readonly valued: readonly string[];
  /** Whether operands are free (revisions, paths after `--`); false: no operands at all. */
  readonly operands: boolean;
}

export const GIT_READ_ONLY: Readonly<Record<string, GitSubcommandSpec>> = {
  status: { flags: ['-s', '--short', '-b', '--branch', '--porcelain', '--long', '-v', '--verbose', '-u', '--untracked-files', '--ignored', '--no-renames', '-z', '--ahead-behind', '--no-ahead-behind'], valued: ['--porcelain', '--untracked-files', '--ignored', '--ignore-submodules'], operands: true },
  log: { flags: GIT_LOG_LIKE_FLAGS, valued: GIT_LOG_LIKE_VALUED, operands: true },
  diff: { flags: GIT_LOG_LIKE_FLAGS, valued: GIT_LOG_LIKE_VALUED, operands: true },
  show: { flags: GIT_LOG_LIKE_FLAGS, valued: GIT_LOG_LIKE_VALUED, operands: true },
  // Listing only: a bare name would create a branch.
  branch: { flags: ['-a', '-r', '-v', '-vv', '-l', '--list', '--all', '--remotes', '--verbose', '--show-current', '--no-color', '--color', '--merged', '--no-merged'], valued: [], operands: false },
};
