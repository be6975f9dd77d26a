/**
 * Resizing the terminal redraws the screen at the new width without leaving copies of it in the
 * scrollback: the repaint once cleared the screen with `ESC[2J`, which tmux (its `scroll-on-clear`)
 * and VTE terminals keep, so every resize added a screenful of duplicate lines above.
 */
import { describe, expect, test } from 'vitest';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();

const ANSWER = Array.from({ length: 8 }, (_, i) => `answer line ${i + 1}`).join('\n\n');
const script: ScriptedResponse[] = [{ kind: 'message', blocks: [{ type: 'text', text: ANSWER }] }];

/** The panel's rule is drawn one column short of the width: a rule of that length means the view redrew at that width. */
const ruleAt = (width: number) => new RegExp(`^─{${width - 1}}$`, 'm');

describe.skipIf(!hasTmux())('resizing in tmux', () => {
  test('each resize redraws once; the scrollback holds every line once', { timeout: 300_000 }, async () => {
    const scenario = await open({ script });
    const { term } = scenario;
    await term.waitFor(READY);
    term.submit('answer');
    await term.waitFor(/answer line 8\n-- 1 turn/);
    const count = (text: string, line: string) => text.split('\n').filter((l) => l === line).length;
    expect(count(term.history(), 'answer line 4')).toBe(1);

    term.resize(70, 40);
    await term.waitFor(ruleAt(70));
    term.resize(100, 30);
    await term.waitFor(ruleAt(100));
    term.resize(120, 40);
    const after = await term.waitFor(ruleAt(120));
    // Still on the screen, and once in the whole pane.
    expect(after).toContain('answer line 4');
    const history = term.history();
    for (let i = 1; i <= 8; i++) expect(count(history, `answer line ${i}`)).toBe(1);
    expect(count(history, '❯ answer')).toBe(1);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
  });
});
