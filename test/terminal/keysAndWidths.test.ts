/**
 * Two things a terminal decides, in a real one (tmux 3.3a):
 * - How wide `❤️` (U+2764 U+FE0F) is. tmux measures code point by code point (1 column; `✌🏽`
 *   3), string-width says 2, and the cursor used to land one column right of the text after it.
 *   The view now asks the terminal at start (it draws the probe and reads the cursor report),
 *   so the caret sits where the text ends.
 * - Modified keys in the kitty keyboard protocol, which the view asks for (`ESC[>1u`): a kitty,
 *   Ghostty, foot, WezTerm or iTerm2 user's Shift+Enter, Esc and Ctrl-C arrive as `CSI u`
 *   sequences. tmux does not speak it, so the test sends those bytes itself, as such a terminal
 *   would (`send-keys -H`), and the view must act on them and type none of their pieces.
 */
import { describe, expect, test } from 'vitest';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { lastUserText, READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();

const echoScript = (request: MessagesRequest): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: `Got: ${lastUserText(request)}` }] });

/** The row of the prompt line (the one starting with the marker) on the screen. */
const promptRow = (screen: string) => screen.split('\n').findIndex((l) => l.startsWith('❯ '));

describe.skipIf(!hasTmux())('what the terminal decides, in tmux', () => {
  test('emoji with a variation selector: the caret sits right after the text, as tmux drew it', { timeout: 300_000 }, async () => {
    const scenario = await open({ script: echoScript, width: 60 });
    const { term, server } = scenario;
    await term.waitFor(READY);
    // ❤️ and ☀️ are one column each in tmux, ✌🏽 three: 2 (marker) + 1 + 1 + 1 + 3 + 1.
    term.type('a❤️☀️✌🏽b');
    const screen = await term.waitFor(/❯ a❤️☀️✌🏽b\n─/);
    const row = promptRow(screen);
    await term.waitFor(() => term.cursor().x === 2 + 1 + 1 + 1 + 3 + 1 && term.cursor().y === row);
    // Left steps over b, then over ✌🏽 whole (three columns), then ☀️ (one).
    term.keys('Left', 'Left', 'Left');
    await term.waitFor(() => term.cursor().x === 2 + 1 + 1 && term.cursor().y === row);
    term.type('Z');
    await term.waitFor(/❯ a❤️Z☀️✌🏽b\n─/);
    await term.waitFor(() => term.cursor().x === 2 + 1 + 1 + 1 && term.cursor().y === row);
    term.keys('Enter');
    await term.waitFor('Got: a');
    expect(lastUserText(server.requests[0]!.body!)).toBe('a❤️Z☀️✌🏽b');
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
  });

  test('kitty protocol keys: Shift+Enter, Ctrl+J add lines; Ctrl-C (Caps Lock on) clears; keypad keys type nothing; Esc interrupts', { timeout: 300_000 }, async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const script: ScriptedResponse[] = [
      { kind: 'message', blocks: [{ type: 'text', text: 'Got three lines.' }] },
      // Held until the test lets go: the turn is running when Esc comes.
      { kind: 'message', endAfter: held, blocks: [{ type: 'text', text: 'thinking for ever' }] },
      { kind: 'message', blocks: [{ type: 'text', text: 'Back again.' }] },
    ];
    const scenario = await open({ script });
    const { term, server } = scenario;
    await term.waitFor(READY);
    term.type('one');
    term.raw('\x1b[13;2u'); // Shift+Enter
    term.type('two');
    term.raw('\x1b[106;5u'); // Ctrl+J
    term.type('three');
    term.raw('\x1b[57399u\x1b[57376;2u'); // keypad 0 and Shift+F13: cut into pieces by readline
    await term.waitFor(/❯ one\n {2}two\n {2}three\n─/);
    expect(server.requests).toHaveLength(0);
    term.keys('Enter');
    await term.waitFor('Got three lines.');
    expect(lastUserText(server.requests[0]!.body!)).toBe('one\ntwo\nthree');

    term.type('not this');
    await term.waitFor(/❯ not this\n─/);
    term.raw('\x1b[99;69u'); // Ctrl-C with Caps Lock on: clears the prompt
    await term.waitFor(/❯\s*\n─/);

    term.submit('wait');
    await term.waitFor('thinking for ever');
    term.raw('\x1b[27u'); // Esc
    await term.waitFor('(interrupted by Esc; Ctrl-C again to exit)');
    release();
    await term.waitFor(/aborted/);
    term.submit('again');
    await term.waitFor('Back again.');
    term.raw('\x1b[100;5u'); // Ctrl-D
    expect(await term.waitForExit()).toBe(0);
  });
});
