/**
 * The loop and the session store together, over real HTTP against the scripted server: a run
 * that stops after its first iteration (maxTurns: 1) and is resumed from its transcript sends
 * exactly the requests the uninterrupted run sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJsonlSessionStore } from '../../src/session/jsonlSessionStore.js';
import { resume, startSession } from '../../src/session/sessions.js';
import { message, runOverHttp, taggedEchoTool as echo, text, toolUse } from '../loop/helpers.js';
import { makeTempDir } from './helpers.js';


const first = message([text('calling'), toolUse('echo', { x: 'a' }, 'toolu_1')]);
const second = message([text('again'), toolUse('echo', { x: 'b' }, 'toolu_2')]);
const final = message([text('all done')]);

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
afterEach(async () => cleanup());

describe('resume with the loop', () => {
  it('reproduces exactly the requests the uninterrupted run sent next', async () => {
    const uninterrupted = await runOverHttp([first, second, final], { tools: [echo], prompt: 'start' });
    expect(uninterrupted.terminal.reason).toBe('completed');
    expect(uninterrupted.requests).toHaveLength(3);

    const store = createJsonlSessionStore({ dir, workspace: '/work/project' });
    const session = await startSession(store, { sessionId: 'loop-1' });
    const cut = await runOverHttp([first], { tools: [echo], prompt: 'start', maxTurns: 1, transcript: session.sink });
    await session.close();
    expect(cut.terminal.reason).toBe('max_turns');

    const resumed = await resume(store, 'loop-1');
    expect(resumed.warnings).toEqual([]);
    const rest = await runOverHttp([second, final], { tools: [echo], messages: resumed.messages, prompt: undefined, transcript: resumed.sink });
    await resumed.close();
    expect(rest.terminal.reason).toBe('completed');

    const messagesOf = (run: { requests: readonly { body?: { messages: unknown } | undefined }[] }) => run.requests.map((r) => r.body?.messages);
    expect(messagesOf(rest)).toEqual(messagesOf(uninterrupted).slice(1));
    for (const r of [...cut.requests, ...rest.requests]) expect(r.validationErrors).toEqual([]);

    // And the transcript now holds the whole conversation: resuming again gives the final history.
    const again = await resume(store, 'loop-1');
    expect(again.messages).toEqual(rest.terminal.messages);
    await again.close();
  });
});
