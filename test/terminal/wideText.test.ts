/**
 * Wide and combined characters at the prompt, in a real terminal: CJK and emoji take two columns,
 * a combining accent none, so a row of them wraps where the terminal wraps it and the cursor is
 * drawn where the text is (measured with string-width; it once counted every character as one
 * column). Left/Right/Backspace move by grapheme: an emoji or `e` + U+0301 is never split.
 */
import { describe, expect, test } from 'vitest';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { lastUserText, READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();

const echoScript = (request: MessagesRequest): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: `Got: ${lastUserText(request)}` }] });

const CJK = '中文'.repeat(10);

/** The prompt at 40 columns: 37 for the text (2 for the marker, the last one kept free). */
const WRAPPED_FIXTURE = `❯ x${'中文'.repeat(9)}
  中文`;

describe.skipIf(!hasTmux())('wide characters in tmux', () => {
  test('rows and cursor in columns; moves and deletions by grapheme', { timeout: 300_000 }, async () => {
    const scenario = await open({ script: echoScript, width: 40 });
    const { term, server } = scenario;
    await term.waitFor(READY);
    term.type(`x${CJK}`);
    const wrapped = await term.waitFor(/❯ x中[\s\S]*\n {2}中文\n─/);
    expect(wrapped).toContain(`${WRAPPED_FIXTURE}\n─`);
    const row = wrapped.split('\n').findIndex((l) => l === '  中文');
    // The terminal's cursor is after the last character: 2 + 2 × 2 columns in.
    await term.waitFor(() => term.cursor().x === 6 && term.cursor().y === row);

    // Two graphemes left is four columns left; a character typed there lands between them.
    term.keys('Left', 'Left');
    await term.waitFor(() => term.cursor().x === 2 && term.cursor().y === row);
    term.type('Y');
    await term.waitFor(/\n {2}Y中文\n─/);

    // An emoji and a combined é: Backspace takes the é whole, Left steps over the emoji whole.
    term.keys('End');
    term.type('😀e\u0301');
    await term.waitFor(/Y中文😀e\u0301\n─/);
    term.keys('BSpace');
    await term.waitFor(/Y中文😀\n─/);
    term.keys('Left');
    await term.waitFor(() => term.cursor().x === 2 + 1 + 4 && term.cursor().y === row);
    term.type('Z');
    await term.waitFor(/Y中文Z😀\n─/);
    term.keys('Enter');
    await term.waitFor('Got: x');
    expect(lastUserText(server.requests[0]!.body!)).toBe(`x${'中文'.repeat(9)}Y中文Z😀`);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
  });
});
