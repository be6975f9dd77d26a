/**
 * The model's Markdown in a real terminal: rendered (no `#`, `**` or fences left, list bullets,
 * highlighted code, bold as an attribute), block by block while it streams; inline code and bold
 * inside list items rendered too (they were printed raw), a task item's box drawn once (it was
 * `[ ]  [ ]`); a code block inside a list item on a line of its own (it was joined onto the
 * item's line), a table with wide characters whose borders line up; and the same answer piped stays the model's text exactly, with no escape codes.
 */
import { describe, expect, test } from 'vitest';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { runAgainst, makeSandbox } from '../cli/helpers.js';
import { READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();

const MARKDOWN =
  '# Plan\n\nI will **check** the `files` first.\n\n- edit `src/a.ts` and **test** it\n- two\n\nTasks:\n\n- [ ] write `b.ts`\n- [x] done\n\n' +
  '1. Run:\n   ```sh\n   npm test\n   ```\n2. Ship\n\n| 名前 | n |\n|---|--:|\n| 中文 | 1 |\n| ab | 22 |\n\n' +
  '```js\nconst answer = 42;\n```\n\nDone.';
const script: ScriptedResponse[] = [{ kind: 'message', blocks: [{ type: 'text', text: MARKDOWN, chunkSize: 7 }] }];

/** The rendered answer as a person sees it (colors aside). */
const RENDERED_FIXTURE = `❯ explain
Plan

I will check the files first.

  * edit src/a.ts and test it
  * two

Tasks:

  * [ ] write b.ts
  * [X] done

  1. Run:
       npm test
  2. Ship

┌──────┬────┐
│ 名前 │  n │
├──────┼────┤
│ 中文 │  1 │
├──────┼────┤
│ ab   │ 22 │
└──────┴────┘

  const answer = 42;

Done.
-- 1 turn`;

describe.skipIf(!hasTmux())('markdown in tmux', () => {
  test('rendered for the terminal: headings, bold, lists with inline code, task boxes, highlighted code', { timeout: 300_000 }, async () => {
    const scenario = await open({ script });
    const { term } = scenario;
    await term.waitFor(READY);
    term.submit('explain');
    const screen = await term.waitFor(/Done\.\n-- 1 turn/);
    expect(screen.slice(screen.indexOf('❯ explain'), screen.indexOf('-- 1 turn') + '-- 1 turn'.length)).toBe(RENDERED_FIXTURE);
    const styled = term.styledScreen();
    // Bold is an attribute, not asterisks; the code is colored (highlighted).
    expect(styled).toMatch(/\u001b\[1mcheck/);
    // Inside list items too: bold as an attribute, the code span styled like the one in the paragraph.
    expect(styled).toMatch(/\u001b\[1mtest/);
    const codeStyle = /(\u001b\[[0-9;]*m)files/.exec(styled)?.[1];
    expect(codeStyle).toBeDefined();
    expect(styled).toContain(`${codeStyle}src/a.ts`);
    expect(styled).toContain(`${codeStyle}b.ts`);
    expect(styled).toMatch(/\u001b\[[0-9;]*m(const)\u001b\[/);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
  });
});

describe('markdown when piped', () => {
  test('the model text as it came, no escape codes', async () => {
    const box = makeSandbox();
    const run = await runAgainst(script, [], { ...box, stdin: 'explain\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(MARKDOWN);
    expect(run.stdout).not.toMatch(/\u001b/);
  });
});
