/** The pure parts of the interactive view: commands, layout, escaping, diffs, rules, Markdown, choices. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { callDiff } from '../../../src/cli/interactive/callDiff.js';
import { reduceChoice } from '../../../src/cli/interactive/choice.js';
import { expandCustomCommand, loadCustomCommands, parseCommandFile } from '../../../src/cli/interactive/customCommands.js';
import { layoutEditor, layoutRowsAbove, truncateLine, visibleWidth } from '../../../src/cli/interactive/layout.js';
import { addLocalRule, removeLocalRule } from '../../../src/cli/interactive/localSettings.js';
import { createMarkdownStream } from '../../../src/cli/interactive/markdown.js';
import { latestExchangeStart } from '../../../src/cli/interactive/compactNow.js';
import { proposedRule, questionLines, questionOptions } from '../../../src/cli/interactive/permissionQuestion.js';
import { completeCommand, parseInput } from '../../../src/cli/interactive/slashCommands.js';
import { loadSettings } from '../../../src/hooks/settings.js';
import type { MessageParam } from '../../../src/protocol/content.js';
import { makeSandbox, removeSandboxes } from '../helpers.js';

afterAll(removeSandboxes);

describe('slash commands', () => {
  const box = makeSandbox({
    '.claude/commands/review.md': '---\ndescription: "Review a file"\n---\nReview $1 carefully; focus: $ARGUMENTS',
    '.claude/commands/plain.md': 'Tell me a joke.',
    '.rxagent/commands/plain.md': 'Tell me a better joke.',
    '.claude/commands/bad name.md': 'x',
  });
  const { commands, warnings } = loadCustomCommands(box.cwd);

  test('built-ins, custom commands (.rxagent wins), unknown commands; a path is a prompt', () => {
    expect(parseInput('/clear', commands)).toEqual({ type: 'builtin', name: 'clear', args: '' });
    expect(parseInput('/compact keep the API\nnames', commands)).toEqual({ type: 'builtin', name: 'compact', args: 'keep the API\nnames' });
    expect(parseInput('/nope x', commands)).toEqual({ type: 'unknown', name: 'nope' });
    expect(parseInput('/etc/hosts looks odd', commands)).toEqual({ type: 'prompt', text: '/etc/hosts looks odd' });
    const plain = parseInput('/plain', commands);
    expect(plain.type === 'custom' && plain.command.body).toBe('Tell me a better joke.');
    expect(warnings.join('\n')).toContain('bad name.md');
  });

  test('$ARGUMENTS and $1 are filled in; arguments a body never mentions are appended', () => {
    const review = commands.get('review')!;
    expect(review.description).toBe('Review a file');
    expect(expandCustomCommand(review, 'src/a.ts errors')).toBe('Review src/a.ts carefully; focus: src/a.ts errors');
    expect(expandCustomCommand(commands.get('plain')!, 'about cats')).toBe('Tell me a better joke.\n\nARGUMENTS: about cats');
    expect(parseCommandFile('no front matter').body).toBe('no front matter');
  });

  test('Tab candidates: built-ins and custom names for a partial /word only', () => {
    expect(completeCommand('/re', commands)).toEqual(['/resume', '/review']);
    expect(completeCommand('/clear x', commands)).toEqual([]);
    expect(completeCommand('hello', commands)).toEqual([]);
  });
});

describe('layout', () => {
  test('the editor wraps at the width minus one and puts the cursor on the right row', () => {
    const layout = layoutEditor('❯ ', 'abcdefgh\nxy', 4, 8);
    expect(layout.rows).toEqual(['❯ abcde', '  fgh', '  xy']);
    expect([layout.cursorRow, layout.cursorColumn]).toEqual([0, 6]);
    const end = layoutEditor('❯ ', 'abcde', 5, 8);
    expect([end.cursorRow, end.cursorColumn]).toEqual([1, 2]);
  });

  test('rows above the cursor are counted at the current width (after a re-wrap)', () => {
    expect(layoutRowsAbove([100, 119, 2], 2, 0, 120)).toBe(2);
    expect(layoutRowsAbove([100, 119, 2], 2, 0, 70)).toBe(4);
  });

  test('truncation keeps escape sequences and cuts visible columns only', () => {
    const cut = truncateLine('\u001b[2mabcdefghij\u001b[22m', 5);
    expect(visibleWidth(cut)).toBe(5);
    expect(cut.startsWith('\u001b[2mabcd…')).toBe(true);
  });
});

describe('what a permission question shows', () => {
  test('the command goes through the shared escaper: written out, counted, whole; nothing raw reaches the screen', () => {
    const command = 'echo \u001b[31mred\r\u202eevil\u0007\ttab\nnext';
    const request = { toolName: 'Bash', input: { command, description: 'de\u001b]0;t\u0007sc' }, reason: 'why', toolUseId: 't', signal: new AbortController().signal };
    const lines = questionLines(request, '/w/\u001b[2Jx', 80, (_style, text) => text);
    expect(lines).toEqual([
      '? Bash needs your approval',
      '    echo \\e[31mred\\r\\u202eevil\\x07\\ttab',
      '    next',
      '    (5 control or invisible characters shown escaped)',
      '    de\\e]0;t\\x07sc',
      '  in /w/\\e[2Jx',
      '  (why)',
    ]);
    const label = questionOptions({ ...request, input: { command: 'ls\u001b[8m' } })[1]!.label;
    expect(label).toBe("Yes, and don't ask again for Bash(ls\\e[8m) in this project");
  });

  test('an Edit diff has the file context; a new file is all additions; a file outside cwd is not read', () => {
    const box = makeSandbox({ 'a.txt': 'one\ntwo\nthree\n' });
    const edit = callDiff('Edit', { file_path: 'a.txt', old_string: 'two', new_string: 'TWO' }, box.cwd);
    expect(edit.map((d) => d.text)).toEqual(['@@ -1,3 +1,3 @@', ' one', '-two', '+TWO', ' three']);
    const write = callDiff('Write', { file_path: 'new.txt', content: 'x\ny\n' }, box.cwd);
    expect(write.map((d) => d.text)).toEqual(['@@ -0,0 +1,2 @@', '+x', '+y']);
    const outside = callDiff('Edit', { file_path: '../home/secret', old_string: 'a', new_string: 'b' }, box.cwd);
    expect(outside.map((d) => d.text)).toEqual(['@@ -1,1 +1,1 @@', '-a', '+b']);
  });

  test('the rule "don\'t ask again" saves: the exact command, the file, or the tool', () => {
    expect(proposedRule('Bash', { command: 'npm test' })).toBe('Bash(npm test)');
    expect(proposedRule('Edit', { file_path: 'src/a.ts' })).toBe('Edit(src/a.ts)');
    expect(proposedRule('Bash', { command: 'echo (a)' })).toBe('Bash');
  });

  test('rules land in .claude/settings.local.json, keep the other keys, and are read by the settings loader', async () => {
    const box = makeSandbox();
    mkdirSync(join(box.cwd, '.claude'));
    writeFileSync(join(box.cwd, '.claude', 'settings.local.json'), JSON.stringify({ env: { A: '1' }, permissions: { deny: ['Read(.env)'] } }));
    addLocalRule(box.cwd, 'allow', 'Bash(npm test)');
    addLocalRule(box.cwd, 'allow', 'Bash(npm test)');
    const file = JSON.parse(readFileSync(join(box.cwd, '.claude', 'settings.local.json'), 'utf8'));
    expect(file).toEqual({ env: { A: '1' }, permissions: { deny: ['Read(.env)'], allow: ['Bash(npm test)'] } });
    const settings = await loadSettings({ cwd: box.cwd, homeDir: box.home });
    expect(settings.permissions.allow).toEqual(['Bash(npm test)']);
    expect(settings.permissions.deny).toEqual(['Read(.env)']);
    expect(removeLocalRule(box.cwd, 'Read(.env)')).toBe(true);
    expect(removeLocalRule(box.cwd, 'Read(.env)')).toBe(false);
    expect(() => addLocalRule(box.cwd, 'allow', 'Bash(unclosed')).toThrow(/invalid permission rule/);
  });
});

describe('Markdown stream', () => {
  const render = (md: string) => `<${md.trim()}>`;
  test('renders each block once it is complete; a code fence is one block, blank lines and all', () => {
    const stream = createMarkdownStream(render, () => 80);
    expect(stream.push('# Title\n\nSome ')).toBe('<# Title>\n\n');
    expect(stream.pending()).toBe('Some ');
    expect(stream.push('text.\n\n```js\na\n\nb\n')).toBe('<Some text.>\n\n');
    expect(stream.push('```\n\nEnd')).toBe('<```js\na\n\nb\n```>\n\n');
    expect(stream.flush()).toBe('<End>\n');
    expect(stream.flush()).toBe('');
  });
});

describe('choices', () => {
  const state = { title: 't', options: [{ label: 'a', value: 1 }, { label: 'b', value: 2 }, { label: 'c', value: 3 }], selected: 0 };
  test('arrows wrap, a digit picks, Enter picks the highlighted one, Esc cancels', () => {
    const up = reduceChoice(state, { type: 'up' });
    expect(up.type === 'open' && up.state.selected).toBe(2);
    expect(reduceChoice(state, { type: 'insert', text: '2' })).toEqual({ type: 'picked', value: 2 });
    expect(reduceChoice(state, { type: 'insert', text: '9' })).toEqual({ type: 'open', state });
    expect(reduceChoice({ ...state, selected: 2 }, { type: 'submit' })).toEqual({ type: 'picked', value: 3 });
    expect(reduceChoice(state, { type: 'escape' })).toEqual({ type: 'cancelled' });
  });
});

describe('wide characters', () => {
  test('columns: CJK and emoji take two, a combining accent none, escape sequences nothing', () => {
    expect(visibleWidth('中文😀e\u0301')).toBe(7);
    expect(visibleWidth('\u001b[1m中\u001b[22m')).toBe(2);
  });

  test('the prompt wraps between graphemes, a wide one that does not fit starts the next row; the cursor is in columns', () => {
    // 7 columns: 4 for the text (2 for the marker, the last one kept free).
    const layout = layoutEditor('❯ ', 'a中文字', 2, 7);
    expect(layout.rows).toEqual(['❯ a中', '  文字']);
    expect([layout.cursorRow, layout.cursorColumn]).toEqual([1, 2]);
    const end = layoutEditor('❯ ', 'a中文字', 4, 7);
    expect([end.cursorRow, end.cursorColumn]).toEqual([2, 2]);
    const mid = layoutEditor('❯ ', 'a中文字', 3, 7);
    expect([mid.cursorRow, mid.cursorColumn]).toEqual([1, 4]);
  });

  test('truncation never cuts a wide character in half', () => {
    expect(truncateLine('中文字符', 5)).toBe('中文…\u001b[0m');
    expect(truncateLine('中文字符', 4)).toBe('中…\u001b[0m');
    expect(visibleWidth(truncateLine('ab😀😀😀', 5))).toBeLessThanOrEqual(5);
  });

  test('a question wraps a CJK command at the width in columns, whole', () => {
    const command = `echo ${'中文'.repeat(30)}`;
    const request = { toolName: 'Bash', input: { command }, reason: 'why', toolUseId: 't', signal: new AbortController().signal };
    const lines = questionLines(request, '/w', 40, (_style, text) => text);
    const rows = lines.slice(1, lines.indexOf('  in /w'));
    expect(rows.map((r) => r.slice(4)).join('')).toBe(command);
    for (const row of rows) expect(visibleWidth(row)).toBeLessThanOrEqual(40 - 1);
  });
});

describe('/compact', () => {
  const user = (text: string): MessageParam => ({ role: 'user', content: text });
  const assistant = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });
  const call: MessageParam = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] };
  const result: MessageParam = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] };
  test('keeps the latest exchange from its prompt: its tool calls and results with it', () => {
    expect(latestExchangeStart([user('a'), assistant('b'), user('c'), call, result, assistant('d')])).toBe(2);
    expect(latestExchangeStart([user('a'), assistant('b'), user('c'), assistant('d')])).toBe(2);
  });

  test('one exchange (however many tool calls) is too short to compact', () => {
    expect(latestExchangeStart([user('a'), call, result, assistant('d')])).toBeUndefined();
    expect(latestExchangeStart([])).toBeUndefined();
  });
});
