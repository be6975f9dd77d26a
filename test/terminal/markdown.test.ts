/**
 * The model's Markdown in a real terminal: rendered (no `#`, `**` or fences left, list bullets,
 * highlighted code, bold as an attribute), block by block while it streams; and the same answer
 * piped stays the model's text exactly, with no escape codes.
 */
import { describe, expect, test } from 'vitest';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { runAgainst, makeSandbox } from '../cli/helpers.js';
import { READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();

const MARKDOWN = '# Plan\n\nI will **check** the `files` first.\n\n- one\n- two\n\n```js\nconst answer = 42;\n```\n\nDone.';
const script: ScriptedResponse[] = [{ kind: 'message', blocks: [{ type: 'text', text: MARKDOWN, chunkSize: 7 }] }];

/** The rendered answer as a person sees it (colors aside). */
const RENDERED_FIXTURE = `❯ explain
Plan

I will check the files first.

  * one
  * two

  const answer = 42;

Done.
-- 1 turn`;

describe.skipIf(!hasTmux())('markdown in tmux', () => {
  test('rendered for the terminal: headings, bold, lists, highlighted code', { timeout: 300_000 }, async () => {
    const scenario = await open({ script });
    const { term } = scenario;
    await term.waitFor(READY);
    term.submit('explain');
    const screen = await term.waitFor(/Done\.\n-- 1 turn/);
    expect(screen.slice(screen.indexOf('❯ explain'), screen.indexOf('-- 1 turn') + '-- 1 turn'.length)).toBe(RENDERED_FIXTURE);
    const styled = term.styledScreen();
    // Bold is an attribute, not asterisks; the code is colored (highlighted).
    expect(styled).toMatch(/\u001b\[1mcheck/);
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
