/**
 * The prompt in a real terminal: a bracketed paste of several lines stays one prompt in its
 * order (it once became four prompts, L1 L4 L2 L3), `\` + Enter and Meta+Enter insert a
 * newline, and so do Shift+Enter and Ctrl+Enter (tmux reports them once the view asks), Up
 * brings back earlier prompts — also in the next run of the same project — and Ctrl-C clears the
 * prompt, Ctrl-D leaves.
 */
import { describe, expect, test } from 'vitest';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { lastUserText, READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();

const echoScript = (request: MessagesRequest): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: `Got ${lastUserText(request).split('\n').length} lines.` }] });

/** The prompt area after the paste: one prompt, four lines, in order. */
const PASTED_FIXTURE = `❯ L1 first line
  L2 second line
  L3 third line
  L4 fourth line`;

describe.skipIf(!hasTmux())('the prompt in tmux', () => {
  test('a multi-line paste is one prompt in order; \\+Enter and Meta+Enter add lines; history persists per project', { timeout: 300_000 }, async () => {
    const scenario = await open({ script: echoScript });
    const { term, server } = scenario;
    await term.waitFor(READY);

    term.paste('L1 first line\nL2 second line\nL3 third line\nL4 fourth line');
    const pasted = await term.waitFor('L4 fourth line');
    expect(pasted).toContain(PASTED_FIXTURE);
    // Nothing was sent while pasting: the newlines of a paste do not submit.
    expect(server.requests).toHaveLength(0);
    term.keys('Enter');
    await term.waitFor('Got 4 lines.');
    expect(server.requests).toHaveLength(1);
    expect(lastUserText(server.requests[0]!.body!)).toBe('L1 first line\nL2 second line\nL3 third line\nL4 fourth line');

    term.submit('one\\');
    term.type('two');
    term.keys('M-Enter');
    term.type('three');
    await term.waitFor(/❯ one\n {2}two\n {2}three/);
    term.keys('Enter');
    await term.waitFor('Got 3 lines.');
    expect(lastUserText(server.requests[1]!.body!)).toBe('one\ntwo\nthree');

    // Up: the newest prompt first (the cursor starts on its last line, so Up goes line by line).
    term.keys('Up');
    await term.waitFor(/❯ one\n {2}two\n {2}three\n─/);
    term.keys('C-c');
    await term.waitFor(/❯\s*\n─/);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);

    // The next run in the same project remembers.
    const again = scenario.restart();
    await again.waitFor(READY);
    again.keys('Up');
    await again.waitFor(/❯ one\n {2}two\n {2}three\n─/);
    again.keys('Up', 'Up', 'Up');
    await again.waitFor(/❯ L1 first line\n {2}L2 second line\n {2}L3 third line\n {2}L4 fourth line\n─/);
    again.keys('C-c');
    again.keys('C-d');
    expect(await again.waitForExit()).toBe(0);
  });
  test('Shift+Enter and Ctrl+Enter insert a newline where the terminal reports them (tmux with extended-keys on)', { timeout: 300_000 }, async () => {
    const scenario = await open({ script: echoScript });
    const { term, server } = scenario;
    await term.waitFor(READY);
    term.type('first');
    term.keys('S-Enter');
    term.type('second');
    term.keys('C-Enter');
    term.type('third');
    await term.waitFor(/❯ first\n {2}second\n {2}third\n─/);
    expect(server.requests).toHaveLength(0);
    term.keys('Enter');
    await term.waitFor('Got 3 lines.');
    expect(lastUserText(server.requests[0]!.body!)).toBe('first\nsecond\nthird');
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
  });
});
