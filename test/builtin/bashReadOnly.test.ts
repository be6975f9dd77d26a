import { describe, expect, test } from 'vitest';
import { classifyBashCommand, isReadOnlyBashCommand } from '../../src/tools/builtin/bashReadOnly.js';

describe('isReadOnlyBashCommand accepts', () => {
  test.each([
    'ls',
    'ls -la src',
    'cat package.json',
    'head -n 20 README.md | wc -l',
    'grep -rn "foo bar" src',
    "grep -E 'a|b' x.txt",
    'rg TODO src',
    'find . -name "*.ts" -type f',
    'echo hello && pwd',
    'sleep 1; date',
    'git status',
    'git log --oneline -5',
    'git diff HEAD~1 -- src',
    'git show HEAD:package.json',
    'git branch -a',
    'git branch',
    'which node || echo none',
    'du -sh . ; df -h',
    'stat package.json',
    'file README.md',
    'cat a\\ b.txt',
    'ls\n',
    // Allowed by design on the parser: input from a file (its path is checked like any other),
    // descriptor duplication, and a comment (bash ignores it).
    'cat < f',
    'ls 2>&1',
    'ls # hi',
  ])('%s', (command) => {
    expect(classifyBashCommand(command)).toEqual({ readOnly: true });
  });
});

describe('isReadOnlyBashCommand rejects', () => {
  test.each([
    ['ls; rm x', /rm is not on the read-only list/],
    ['cat > f', /redirection/],
    ['echo hi >> log', /redirection/],
    ['echo $(rm -rf /)', /substitution/],
    ['echo `rm x`', /substitution/],
    ['echo "$(whoami)"', /substitution/],
    ['cat <(ls)', /process substitution/],
    ['echo $HOME', /expansion/],
    ['find . -delete', /may write/],
    ['find . -name x -exec rm {} ;', /may write|subshell/],
    ['find . -execdir rm x', /may write/],
    ['find . -fprint out', /may write/],
    ['FOO=1 ls', /variable assignment/],
    ['(ls)', /subshell/],
    ['{ ls; }', /subshell|group/],
    ['ls &', /background/],
    ['rm -rf x', /not on the read-only list/],
    ['npm test', /not on the read-only list/],
    ['git commit -m x', /not on the read-only list|may write/],
    ['git branch new-branch', /may write/],
    ['git diff --output=x', /may write/],
    ['git -C . status', /may write/],
    ['rg --pre ./x foo', /may write/],
    ['date -s 2020-01-01', /may write/],
    ["echo 'unterminated", /would not parse/],
    ['ls |', /would not parse/],
    ['ls && && ls', /would not parse/],
    ['', /empty/],
    ['/bin/rm x', /not on the read-only list/],
    ['xargs rm', /not on the read-only list/],
  ])('%s', (command, reason) => {
    const verdict = classifyBashCommand(command);
    expect(verdict.readOnly).toBe(false);
    if (!verdict.readOnly) expect(verdict.reason).toMatch(reason);
    expect(isReadOnlyBashCommand(command)).toBe(false);
  });
});
