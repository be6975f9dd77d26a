/**
 * Permission questions in a real terminal: the whole command (it was cut at 77 characters), its
 * escape sequences shown escaped rather than obeyed, the working directory, the diff of an Edit;
 * "Yes, and don't ask again" saves the rule in .claude/settings.local.json and the same call is
 * not asked again (in this run, nor in the next); "No" takes a reason that reaches the model.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_MODEL } from '../../src/context/modelTable.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { normalize, READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();

const COMMAND = `printf '\u001b[31mred\u001b[0m' > out.txt && echo ${'a'.repeat(40)} ${'b'.repeat(40)} ${'c'.repeat(40)} ${'d'.repeat(20)} END`;
const bash = (id: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'tool_use', id, name: 'Bash', input: { command: COMMAND } }] });
const APP = 'function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n';

/** The question for the Edit, as the person sees it (the choices under it). */
const EDIT_QUESTION_FIXTURE = `? Edit needs your approval
    app.js
  in <cwd>
    @@ -1,5 +1,5 @@
     function add(a, b) {
    -  return a - b;
    +  return a + b;
     }

     module.exports = { add };
  (file edits need approval)
───
Allow this call?
❯ 1. Yes
  2. Yes, and don't ask again for Edit(app.js) in this project
  3. No, and tell the model what to do instead
  ↑/↓ or a number to choose · Enter to confirm · Esc to cancel
───`;

describe.skipIf(!hasTmux())('permission questions in tmux', () => {
  test('whole command escaped, cwd, Edit diff; "don\'t ask again" saves the rule and is not asked again; "no" takes a reason', { timeout: 300_000 }, async () => {
    let calls = 0;
    const script = (request: MessagesRequest): ScriptedResponse | undefined => {
      calls += 1;
      void request;
      if (calls === 1) return bash('toolu_1');
      if (calls === 2) return bash('toolu_2');
      if (calls === 3) return { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_3', name: 'Edit', input: { file_path: 'app.js', old_string: '  return a - b;', new_string: '  return a + b;' } }] };
      if (calls === 4) return { kind: 'message', blocks: [{ type: 'text', text: 'Understood.' }] };
      if (calls === 5) return bash('toolu_5');
      return { kind: 'message', blocks: [{ type: 'text', text: 'Ran it without asking.' }] };
    };
    const scenario = await open({ script, files: { 'app.js': APP } });
    const { term, server, box } = scenario;
    await term.waitFor(READY);
    term.submit('fix it');
    const question = await term.waitFor('Allow this call?');
    // The whole command, wrapped, with its escape characters written out (not obeyed).
    const shown = question.split('\n');
    const start = shown.findIndex((l) => l.startsWith('? Bash needs your approval'));
    const commandRows = shown.slice(start + 1, shown.findIndex((l, i) => i > start && l.startsWith('    ('))).map((l) => l.slice(4));
    expect(commandRows.join('')).toBe(COMMAND.replace(/\u001b/g, '\\e'));
    expect(question).toContain('    (2 control or invisible characters shown escaped)\n  in ');
    expect(commandRows.length).toBeGreaterThan(1);
    expect(question).toContain(`  in ${box.cwd}`);
    expect(term.styledScreen()).not.toContain('\u001b[31mred');

    term.keys('2');
    await term.waitFor('saved to');
    const saved = JSON.parse(readFileSync(join(box.cwd, '.claude', 'settings.local.json'), 'utf8')) as { permissions: { allow: string[] } };
    expect(saved.permissions.allow).toEqual([`Bash(${COMMAND})`]);

    // The second identical call runs without a question; then the Edit asks, with its diff.
    // The question is printed above the panel, then the choice is drawn in it: two writes, which
    // the screen can show apart, so wait for the choice under the question.
    const edit = await term.waitFor(/\? Edit needs your approval[\s\S]*Esc to cancel/);
    expect(edit.match(/needs your approval/g)).toHaveLength(2);
    const editShown = normalize(edit, box.cwd);
    expect(editShown.slice(editShown.indexOf('? Edit needs'))).toBe(`${EDIT_QUESTION_FIXTURE}\n  ${DEFAULT_MODEL} · default mode · context <p>% · $0.0000 · working · Esc to interrupt`);
    expect(edit.match(/ok Bash/g)).toHaveLength(2);

    term.keys('3');
    await term.waitFor('Tell the model what to do instead');
    term.submit('use a test first');
    await term.waitFor('Understood.');
    expect(JSON.stringify(server.requests[3]!.body!.messages)).toContain('The user declined this call and said: use a test first');
    expect(readFileSync(join(box.cwd, 'app.js'), 'utf8')).toBe(APP);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);

    // The next run reads the saved rule: the same command is not asked about.
    const again = scenario.restart();
    await again.waitFor(READY);
    again.submit('once more');
    const after = await again.waitFor('Ran it without asking.');
    expect(after).not.toContain('needs your approval');
    expect(after).toContain('ok Bash');
    again.keys('C-d');
    expect(await again.waitForExit()).toBe(0);
  });
});
