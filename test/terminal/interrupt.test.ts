/**
 * Esc in a real terminal interrupts the running turn: the running tool gets exactly one finish
 * line ("interrupted after …"), its live line goes and never comes back (it once kept ticking
 * beside the next turn's), and the next prompt works. A resize while a tool runs redraws its
 * live line at the new width, once.
 */
import { describe, expect, test } from 'vitest';
import { DEFAULT_MODEL } from '../../src/context/modelTable.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { normalize, READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();

const LONG = `sleep 30 && echo ${'x'.repeat(150)}`;
const script: ScriptedResponse[] = [
  { kind: 'message', blocks: [{ type: 'text', text: 'Taking a nap.' }, { type: 'tool_use', id: 'toolu_nap', name: 'Bash', input: { command: LONG } }] },
  { kind: 'message', blocks: [{ type: 'text', text: 'Still here.' }] },
];

/**
 * The screen after the resizes, the interrupt and one more turn (a resize draws the screen again
 * from the output kept): one start line, one finish line, no live line.
 */
const INTERRUPTED_FIXTURE = `rxagent ${DEFAULT_MODEL} in <cwd> (session <session>)
Type a request, or /help for commands. Esc interrupts a turn; Ctrl-D exits.
❯ take a nap
Taking a nap.
> Bash sleep 30 && echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...
(interrupted by Esc; Ctrl-C again to exit)
  x Bash interrupted after <t>
Interrupted.
-- 1 turn · <n> in / <n> out tokens · $<cost> · <t> · aborted_tools
❯ are you there?
Still here.
-- 1 turn · <n> in / <n> out tokens · $<cost> · <t> · completed
───
❯
───
  ${DEFAULT_MODEL} · bypassPermissions mode · context <p>% · $<cost>`;

describe.skipIf(!hasTmux())('interrupting in tmux', () => {
  test('Esc interrupts the running tool: one finish line, no stale live line; a resize redraws the live line once', { timeout: 300_000 }, async () => {
    const scenario = await open({ script, args: ['--dangerously-skip-permissions'] });
    const { term, server } = scenario;
    await term.waitFor(READY);
    term.submit('take a nap');
    await term.waitFor(/… Bash sleep 30 .*\(\d+\.\ds\)/);

    // The screen settles with the live line once, at the new width (a stale copy would stay: timeout).
    const liveLines = (screen: string) => screen.split('\n').filter((l) => l.includes('… Bash'));
    term.resize(70, 40);
    await term.waitFor((s) => liveLines(s).length === 1 && liveLines(s)[0]!.length < 70 && /^ {2}… Bash sleep 30 .*…$/.test(liveLines(s)[0]!));
    term.resize(120, 40);
    await term.waitFor((s) => liveLines(s).length === 1 && /^ {2}… Bash sleep 30 .*\.\.\. \(\d+\.\ds\)$/.test(liveLines(s)[0]!));

    term.keys('Escape');
    await term.waitFor(/-- 1 turn .* aborted_tools/);
    term.submit('are you there?');
    const screen = await term.waitFor(/Still here\.\n-- 1 turn[\s\S]*· \$0\.\d{4}$/);
    expect(screen.match(/interrupted after/g)).toHaveLength(1);
    expect(screen).not.toMatch(/ok Bash|… Bash/);
    expect(normalize(screen, scenario.box.cwd)).toBe(INTERRUPTED_FIXTURE);
    expect(server.requests).toHaveLength(2);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
  });
});
