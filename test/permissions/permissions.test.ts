import { describe, expect, test } from 'vitest';
import { ConfigurationError } from '../../src/errors.js';
import { createPermissionPolicy, decidePermission } from '../../src/permissions/createPermissionPolicy.js';
import { ruleMatches } from '../../src/permissions/matchRule.js';
import type { PermissionMode } from '../../src/permissions/modes.js';
import { parseRule, parseRuleStrings, parseToolList, type RuleBehavior } from '../../src/permissions/rules.js';
import type { CanUseToolContext, PermissionDecision } from '../../src/tools/hooks.js';

const cwd = '/repo';
const ctx = { cwd, homeDir: '/home/u' };
const canCtx = (hookDecision?: PermissionDecision, hookReason?: string): CanUseToolContext => ({
  toolUseId: 'toolu_1',
  shared: {},
  signal: new AbortController().signal,
  hookDecision,
  hookReason,
});

describe('rule parsing', () => {
  test('tool names, contents and the tool list splitter', () => {
    expect(parseRule('Read')).toEqual({ toolName: 'Read', text: 'Read' });
    expect(parseRule(' Bash(git diff:*) ')).toEqual({ toolName: 'Bash', content: 'git diff:*', text: 'Bash(git diff:*)' });
    expect(parseRule('Bash()')).toEqual({ toolName: 'Bash', text: 'Bash' });
    expect(parseToolList('Read, Bash(git diff:*) Edit(src/**),Bash(npm run test)').map((r) => r.text)).toEqual([
      'Read',
      'Bash(git diff:*)',
      'Edit(src/**)',
      'Bash(npm run test)',
    ]);
  });

  test('malformed rules are configuration errors naming the rule', () => {
    expect(() => parseRule('Bash(ls')).toThrow(ConfigurationError);
    expect(() => parseRule('Bad Name')).toThrow(/invalid permission rule "Bad Name"/);
    expect(() => parseToolList('Bash(ls')).toThrow(/unbalanced/);
  });
});

const table: Array<[rule: string, behavior: RuleBehavior, tool: string, input: object, matches: boolean]> = [
  ['Read', 'allow', 'Read', { file_path: 'x' }, true],
  ['Read', 'allow', 'Grep', { pattern: 'x' }, true],
  ['Read', 'allow', 'Write', { file_path: 'x' }, false],
  ['Edit', 'deny', 'Write', { file_path: 'x' }, true],
  ['Bash(npm test)', 'allow', 'Bash', { command: 'npm test' }, true],
  ['Bash(npm test)', 'allow', 'Bash', { command: 'npm test --watch' }, false],
  ['Bash(npm test)', 'allow', 'Bash', { command: 'npm test; rm -rf /' }, false],
  ['Bash(git diff:*)', 'allow', 'Bash', { command: 'git diff' }, true],
  ['Bash(git diff:*)', 'allow', 'Bash', { command: 'git diff HEAD -- src' }, true],
  ['Bash(git diff:*)', 'allow', 'Bash', { command: 'git difftool' }, false],
  ['Bash(git diff:*)', 'allow', 'Bash', { command: 'git diff && rm -rf x' }, false],
  ['Bash(git diff:*)', 'allow', 'Bash', { command: 'git diff $(rm x)' }, false],
  ['Bash(git diff:*)', 'allow', 'Bash', { command: 'git diff | less' }, false],
  ['Bash(git:*)', 'allow', 'Bash', { command: 'git diff | git apply' }, true],
  ['Bash(rm:*)', 'deny', 'Bash', { command: 'ls && rm -rf x' }, true],
  ['Bash(rm:*)', 'deny', 'Bash', { command: 'echo $(rm -rf x)' }, true],
  // An unparseable line is split naively for deny rules, so they err on the side of matching.
  // On the parser, `ls > rm` runs ls (writing a file named rm); `rm` as a command still matches.
  ['Bash(rm:*)', 'deny', 'Bash', { command: 'ls > rm' }, false],
  ['Bash(rm:*)', 'deny', 'Bash', { command: 'ls > x; rm y' }, true],
  ['Bash(rm:*)', 'deny', 'Bash', { command: 'ls rm' }, false],
  ['Bash(npm run *)', 'allow', 'Bash', { command: 'npm run build' }, true],
  ['Bash(npm run *)', 'allow', 'Bash', { command: 'npx run' }, false],
  ['Bash(*)', 'allow', 'Bash', { command: 'anything at all > f' }, true],
  ['Bash', 'deny', 'Bash', { command: 'ls' }, true],
  ['Edit(src/**)', 'allow', 'Edit', { file_path: 'src/a/b.ts' }, true],
  ['Edit(src/**)', 'allow', 'Edit', { file_path: '/repo/src/b.ts' }, true],
  ['Edit(src/**)', 'allow', 'Write', { file_path: 'src/new.ts' }, true],
  ['Edit(src/**)', 'allow', 'Edit', { file_path: 'test/a.ts' }, false],
  ['Edit(src/**)', 'allow', 'Edit', { file_path: 'src/../test/a.ts' }, false],
  ['Edit(*.md)', 'allow', 'Edit', { file_path: 'README.md' }, true],
  ['Edit(*.md)', 'allow', 'Edit', { file_path: 'docs/x.md' }, false],
  ['Read(/abs/path/**)', 'allow', 'Read', { file_path: '/abs/path/deep/f' }, true],
  ['Read(/abs/path/**)', 'allow', 'Read', { file_path: '/abs/other' }, false],
  ['Read(~/notes/**)', 'allow', 'Read', { file_path: '/home/u/notes/a.txt' }, true],
  ['Read(src/**)', 'allow', 'Grep', { pattern: 'x', path: 'src' }, true],
  ['Read(src/**)', 'allow', 'Grep', { pattern: 'x' }, false],
  ['WebFetch', 'allow', 'WebFetch', { url: 'x' }, true],
  ['WebFetch', 'allow', 'Read', { file_path: 'x' }, false],
];

describe('rule matching table', () => {
  test.each(table)('%s as %s on %s %j → %s', (rule, behavior, tool, input, expected) => {
    expect(ruleMatches(parseRule(rule), behavior, tool, input, ctx)).toBe(expected);
  });
});

describe('decidePermission: modes and precedence', () => {
  const none = parseRuleStrings();
  const decide = (mode: PermissionMode, tool: string, input: object, rules = none, hookDecision?: PermissionDecision) =>
    decidePermission(mode, rules, { toolName: tool, input, hookDecision }, ctx).behavior;

  const modeTable: Array<[PermissionMode, string, object, PermissionDecision]> = [
    ['default', 'Read', { file_path: 'a' }, 'allow'],
    ['default', 'Glob', { pattern: '*' }, 'allow'],
    ['default', 'Write', { file_path: 'a', content: '' }, 'ask'],
    ['default', 'Edit', { file_path: 'a' }, 'ask'],
    ['default', 'Bash', { command: 'rm x' }, 'ask'],
    ['default', 'Bash', { command: 'git status' }, 'allow'],
    ['default', 'WebFetch', {}, 'ask'],
    ['acceptEdits', 'Write', { file_path: 'a', content: '' }, 'allow'],
    ['acceptEdits', 'Edit', { file_path: 'a' }, 'allow'],
    ['acceptEdits', 'Bash', { command: 'npm test' }, 'ask'],
    ['bypassPermissions', 'Bash', { command: 'rm -rf x' }, 'allow'],
    ['bypassPermissions', 'Write', { file_path: 'a', content: '' }, 'allow'],
    ['plan', 'Read', { file_path: 'a' }, 'allow'],
    ['plan', 'Bash', { command: 'ls' }, 'allow'],
    ['plan', 'Write', { file_path: 'a', content: '' }, 'deny'],
    ['plan', 'Edit', { file_path: 'a' }, 'deny'],
    ['plan', 'Bash', { command: 'npm install' }, 'deny'],
    ['dontAsk', 'Read', { file_path: 'a' }, 'allow'],
    ['dontAsk', 'Bash', { command: 'npm test' }, 'ask'],
  ];
  test.each(modeTable)('%s: %s %j → %s', (mode, tool, input, expected) => {
    expect(decide(mode, tool, input)).toBe(expected);
  });

  test('deny > ask > allow > mode', () => {
    const rules = parseRuleStrings({ allow: ['Bash(npm:*)', 'Read'], ask: ['Bash(npm publish:*)'], deny: ['Bash(npm publish --force)', 'Read(secrets/**)'] });
    expect(decide('default', 'Bash', { command: 'npm test' }, rules)).toBe('allow');
    expect(decide('default', 'Bash', { command: 'npm publish' }, rules)).toBe('ask');
    expect(decide('default', 'Bash', { command: 'npm publish --force' }, rules)).toBe('deny');
    expect(decide('bypassPermissions', 'Bash', { command: 'npm publish --force' }, rules)).toBe('deny');
    expect(decide('bypassPermissions', 'Bash', { command: 'npm publish' }, rules)).toBe('ask');
    expect(decide('default', 'Read', { file_path: 'secrets/key' }, rules)).toBe('deny');
    expect(decide('default', 'Read', { file_path: 'src/key' }, rules)).toBe('allow');
  });

  test('plan mode stays read-only even with an allow rule; a deny rule beats a hook allow', () => {
    const rules = parseRuleStrings({ allow: ['Edit', 'Bash(npm test)'], deny: ['Bash(rm:*)'] });
    expect(decide('plan', 'Edit', { file_path: 'a' }, rules)).toBe('deny');
    expect(decide('plan', 'Bash', { command: 'npm test' }, rules)).toBe('deny');
    expect(decide('default', 'Bash', { command: 'rm x' }, rules, 'allow')).toBe('deny');
    expect(decide('default', 'Bash', { command: 'make' }, rules, 'allow')).toBe('allow');
    expect(decide('default', 'Read', { file_path: 'a' }, rules, 'ask')).toBe('ask');
    expect(decide('bypassPermissions', 'Read', { file_path: 'a' }, rules, 'deny')).toBe('deny');
  });
});

describe('createPermissionPolicy', () => {
  test('non-interactive: ask becomes a denial telling the model it lacks permission', async () => {
    const policy = createPermissionPolicy({ mode: 'default', cwd });
    expect(await policy('Read', { file_path: 'a' }, canCtx())).toEqual({ behavior: 'allow' });
    const result = await policy('Bash', { command: 'npm test' }, canCtx());
    expect(result.behavior).toBe('deny');
    if (result.behavior === 'deny') expect(result.message).toMatch(/needs the user's approval.*cannot ask/);
  });

  test('deny messages name the rule and say what to do', async () => {
    const policy = createPermissionPolicy({ mode: 'bypassPermissions', cwd, rules: { deny: ['Bash(rm:*)'] } });
    const result = await policy('Bash', { command: 'rm -rf /' }, canCtx());
    expect(result).toEqual({
      behavior: 'deny',
      message: expect.stringMatching(/deny rule `Bash\(rm:\*\)` forbids it\. Do not retry/),
    });
  });

  test('interactive: ask goes to the callback, with its answer passed through', async () => {
    const asked: string[] = [];
    const policy = createPermissionPolicy({
      mode: 'default',
      cwd,
      interactive: true,
      ask: (request) => {
        asked.push(`${request.toolName}: ${request.reason}`);
        return request.toolName === 'Edit'
          ? { behavior: 'allow', updatedInput: { file_path: 'b', old_string: 'x', new_string: 'y' } }
          : { behavior: 'deny' };
      },
    });
    expect(await policy('Edit', { file_path: 'a' }, canCtx())).toEqual({
      behavior: 'allow',
      updatedInput: { file_path: 'b', old_string: 'x', new_string: 'y' },
    });
    const denied = await policy('Bash', { command: 'make' }, canCtx());
    expect(denied.behavior).toBe('deny');
    expect(asked).toEqual(['Edit: file edits need approval', 'Bash: this command needs approval']);
  });

  test('dontAsk denies what would ask even with an ask callback', async () => {
    let called = false;
    const policy = createPermissionPolicy({ mode: 'dontAsk', cwd, interactive: true, ask: () => ((called = true), { behavior: 'allow' }) });
    const result = await policy('Write', { file_path: 'a', content: '' }, canCtx());
    expect(result.behavior).toBe('deny');
    if (result.behavior === 'deny') expect(result.message).toMatch(/dontAsk/);
    expect(called).toBe(false);
  });

  test('hook decisions reach the policy through the context', async () => {
    const policy = createPermissionPolicy({ mode: 'default', cwd });
    expect(await policy('Bash', { command: 'make' }, canCtx('allow', 'trusted by hook'))).toEqual({ behavior: 'allow' });
    const result = await policy('Read', { file_path: 'a' }, canCtx('ask', 'hook wants a human'));
    expect(result.behavior === 'deny' && result.message).toMatch(/hook wants a human/);
  });

  test('accepts parsed rule sets as well as strings', async () => {
    const policy = createPermissionPolicy({ mode: 'default', cwd, rules: { allow: parseToolList('Bash(make:*)'), deny: [], ask: [] } });
    expect(await policy('Bash', { command: 'make all' }, canCtx())).toEqual({ behavior: 'allow' });
  });
});
