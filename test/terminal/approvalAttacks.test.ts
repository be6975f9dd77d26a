/**
 * Attacks on the approval question, in a real terminal: a command carrying escape sequences
 * (clear the screen, retitle the window, a hyperlink, the one-byte C1 CSI), a carriage return
 * and backspaces that overprint, a right-to-left override and zero-width characters. The question
 * must show all of it written out by the shared escaper (src/util/escapeForTerminal.ts), counted,
 * and the terminal must not obey any of it. A control pane prints the same command raw, so the
 * checks are shown to fail when the escaping is missing. A command longer than the screen is
 * shown whole (it was once cut at 77 characters). The model's own text, while its block is still
 * open (drawn raw in the live panel before), cannot act on the terminal either.
 */
import { describe, expect, test } from 'vitest';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { escapeForTerminal } from '../../src/util/escapeForTerminal.js';
import { makeSandbox } from '../cli/helpers.js';
import { READY, useScenarios } from './scenario.js';
import { hasTmux, startTerminal } from './tmux.js';

const open = useScenarios();

/** Harmless when run (all after `#` is a comment), hostile when printed raw. */
const ATTACK =
  "printf '%s\\n' ok > out.txt # " +
  '\u001b[2J\u001b[H' + // clear the screen, cursor home
  '\u001b]2;PWNED\u0007' + // retitle the window
  '\u001b]8;;http://127.0.0.1/\u001b\\link\u001b]8;;\u001b\\ ' + // a hyperlink
  '\u009b31m' + // the C1 CSI: red on terminals that take it
  'rm -rf ~ \rls -la   ' + // overprinted by what follows the CR
  'abc\b\b\b ' + // backspaces
  'ls \u202eexe.cod ' + // Trojan Source
  'r\u200bm\u2060 END';
const HUGE = `printf '%s' ${'abcdefghi/'.repeat(500)} > big.txt`;

const bash = (id: string, command: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] });

/** The question's command rows (after its 4-column indent), from the last question on `screen`. */
function commandRows(screen: string): string[] {
  const lines = screen.split('\n');
  const start = lines.map((l) => l.startsWith('? Bash needs your approval')).lastIndexOf(true);
  const end = lines.findIndex((l, i) => i > start && (l.startsWith('  in ') || l.startsWith('    (')));
  return lines.slice(start + 1, end).map((l) => l.slice(4));
}

describe.skipIf(!hasTmux())('approval question attacks in tmux', () => {
  test('the raw command does act on this terminal (the control: the checks below can fail)', { timeout: 120_000 }, async () => {
    const box = makeSandbox();
    const term = startTerminal({ ...box, baseURL: 'http://127.0.0.1:9', program: [process.execPath, '-e', `process.stdout.write('before\\n' + ${JSON.stringify(ATTACK)} + '\\n'); setTimeout(() => {}, 60_000)`] });
    try {
      await term.waitFor('END');
      expect(term.title()).toBe('PWNED');
      const screen = term.screen();
      expect(screen).not.toContain('before');
      expect(screen).toContain('\u202e');
      expect(screen).not.toContain('rm -rf ~');
    } finally {
      term.kill();
    }
  });

  test("the model's unfinished text block is drawn escaped: its sequences do not act while it streams", { timeout: 300_000 }, async () => {
    // The block stays open (its stop is 10 minutes away): the text is the panel's pending block
    // until Esc ends the turn.
    const script: ScriptedResponse[] = [
      { kind: 'message', blocks: [{ type: 'text', text: 'Working \u001b]2;PWNED\u0007\u001b[2J on it', stopDelayMs: 600_000 }] },
    ];
    const { term } = await open({ script });
    await term.waitFor(READY);
    const titleBefore = term.title();
    term.submit('go');
    const streaming = await term.waitFor('Working \\e]2;PWNED\\x07\\e[2J on it');
    expect(streaming).toContain('❯ go');
    expect(term.title()).toBe(titleBefore);
    term.keys('Escape');
    const ended = await term.waitFor(/-- 1 turn/);
    expect(ended).toContain('Type a request, or /help');
    expect(term.title()).toBe(titleBefore);
    term.keys('C-d');
    // The last turn was interrupted: the exit status says so, as after any interrupted run.
    expect(await term.waitForExit()).toBe(1);
  });

  test('escape sequences, overprints and bidi controls are shown written out and counted; a huge command is shown whole', { timeout: 300_000 }, async () => {
    let calls = 0;
    const script = (): ScriptedResponse => {
      calls += 1;
      if (calls === 1) return bash('toolu_1', ATTACK);
      if (calls === 2) return bash('toolu_2', HUGE);
      return { kind: 'message', blocks: [{ type: 'text', text: 'Both ran.' }] };
    };
    const scenario = await open({ script });
    const { term } = scenario;
    await term.waitFor(READY);
    const titleBefore = term.title();
    term.submit('go');
    const question = await term.waitFor(/\? Bash needs your approval[\s\S]*Esc to cancel/);

    const escaped = escapeForTerminal(ATTACK);
    expect(commandRows(question).join('')).toBe(escaped.text);
    expect(question).toContain(`    (${escaped.escaped} control or invisible characters shown escaped)`);
    expect(escaped.escaped).toBe(16);
    // Nothing was obeyed: the screen was not cleared, the title is unchanged, no bidi or
    // zero-width character reached a cell, the overprinted text is still there to read.
    expect(question).toContain('Type a request, or /help');
    expect(question).toContain('❯ go');
    expect(term.title()).toBe(titleBefore);
    expect(question).not.toMatch(/[\u202e\u200b\u2060\u009b]/);
    expect(commandRows(question).join('')).toContain('rm -rf ~ \\rls -la');
    expect(term.styledScreen()).not.toContain('\u001b]');

    term.keys('1');
    // Longer than the screen (40 rows): its header scrolled off, so read the scrollback too.
    await term.waitFor(/ > big\.txt\n {2}in [\s\S]*Esc to cancel/);
    const rows = commandRows(term.history());
    expect(rows.join('')).toBe(HUGE);
    expect(rows.length).toBeGreaterThan(40);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(120 - 5);
    term.keys('1');
    await term.waitFor('Both ran.');
    expect(term.title()).toBe(titleBefore);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
  });
});
