/**
 * The interactive `/clear` in a real terminal tells a repository's session hooks what Claude
 * Code tells them: SessionEnd with reason `clear` for the conversation that ends, SessionStart
 * with source `clear` for the new one (a start is `startup`, leaving is `other`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();
/** Appends the hook's input as one line of hooks.jsonl in the workspace. */
const record = [{ hooks: [{ type: 'command', command: '(cat; echo) >> hooks.jsonl' }] }];

describe.skipIf(!hasTmux())('/clear and the session hooks in tmux', () => {
  test('/clear: SessionEnd reason clear, then SessionStart source clear with the new session id', { timeout: 120_000 }, async () => {
    const { term, box } = await open({
      script: [{ kind: 'message', blocks: [{ type: 'text', text: 'Noted.' }] }],
      files: { '.claude/settings.json': JSON.stringify({ hooks: { SessionStart: record, SessionEnd: record } }) },
    });
    await term.waitFor(READY);
    term.submit('remember kiwi');
    await term.waitFor('Noted.');
    term.submit('/clear');
    const shown = await term.waitFor(/\(new conversation, session ([0-9a-f-]{36});/);
    const newId = /\(new conversation, session ([0-9a-f-]{36});/.exec(shown)![1];
    // The view says so only after the old run closed and the new one was built: both hooks have run.
    const events = () => readFileSync(join(box.cwd, 'hooks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const [start, end, restart] = events();
    expect(start).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup' });
    expect(end).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'clear', session_id: start!['session_id'] });
    expect(restart).toMatchObject({ hook_event_name: 'SessionStart', source: 'clear', session_id: newId });
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
    expect(events()[3]).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'other', session_id: newId });
  });
});
