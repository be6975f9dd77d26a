/**
 * The permission asker with a scripted front end and a fake clock: questions one at a time, the
 * answers' effects, and the time a call waited for its answer left out of its reported time.
 */
import { describe, expect, test } from 'vitest';
import type { Choice, FrontEnd } from '../../../src/cli/interactive/frontEnd.js';
import { createPermissionAsker } from '../../../src/cli/interactive/permissionAsker.js';
import { createTerminalRenderer } from '../../../src/cli/interactive/render.js';
import type { PermissionRequest } from '../../../src/permissions/createPermissionPolicy.js';
import { makeSandbox } from '../helpers.js';
import { eventually } from '../../eventually.js';

function scriptedFrontEnd(answers: unknown[], lines: string[] = []) {
  const printed: string[] = [];
  let pendingChoice: ((value: unknown) => void) | undefined;
  const frontEnd: FrontEnd = {
    interactive: true,
    color: false,
    columns: () => 80,
    print: (t) => void printed.push(t),
    idle: () => undefined,
    busy: () => undefined,
    choose: <T,>(_title: string, _options: ReadonlyArray<Choice<T>>) =>
      new Promise<T | undefined>((resolve) => {
        pendingChoice = resolve as (value: unknown) => void;
      }),
    readLine: async () => lines.shift(),
    refresh: () => undefined,
    close: () => undefined,
  };
  return {
    frontEnd,
    printed,
    /** Gives the open question its next scripted answer. */
    answer: () => {
      const resolve = pendingChoice;
      pendingChoice = undefined;
      resolve?.(answers.shift());
    },
    get open() {
      return pendingChoice !== undefined;
    },
  };
}

const request = (id: string, command: string, signal = new AbortController().signal): PermissionRequest => ({ toolName: 'Bash', input: { command }, reason: 'why', toolUseId: id, signal });
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('createPermissionAsker', () => {
  test('the wait for the answer is measured and left out of the tool time shown', async () => {
    let now = 1_000;
    const restarted: Array<[string, number]> = [];
    const ui = scriptedFrontEnd(['yes']);
    const box = makeSandbox();
    const asker = createPermissionAsker({ frontEnd: ui.frontEnd, match: { cwd: box.cwd }, paint: (_s, t) => t, answered: (id, at) => void restarted.push([id, at]), now: () => now });
    const answer = asker.ask(request('t1', 'make'));
    await flush();
    now += 7_500; // the person thinks for 7.5 s
    ui.answer();
    expect(await answer).toEqual({ behavior: 'allow' });
    expect(asker.waitedMs('t1')).toBe(7_500);
    expect(restarted).toEqual([['t1', 8_500]]);
    const r = createTerminalRenderer({ color: false, waitedMs: asker.waitedMs });
    r.render({ chainId: 'c', depth: 0, type: 'tool_start', toolUseId: 't1', name: 'Bash', input: { command: 'make' } });
    const line = r.render({ chainId: 'c', depth: 0, type: 'tool_result', toolUseId: 't1', name: 'Bash', result: { type: 'tool_result', tool_use_id: 't1', content: 'ok' }, durationMs: 7_800 });
    expect(line).toBe('  ok Bash 300ms\n');
  });

  test('one question at a time; "always" allows the same call after it without asking; "no" passes the reason', async () => {
    const ui = scriptedFrontEnd(['always', 'no'], ['run the tests first']);
    const box = makeSandbox();
    const asker = createPermissionAsker({ frontEnd: ui.frontEnd, match: { cwd: box.cwd }, paint: (_s, t) => t, answered: () => undefined });
    const first = asker.ask(request('a', 'make build'));
    const second = asker.ask(request('b', 'make build'));
    const third = asker.ask(request('c', 'rm -rf dist'));
    await flush();
    expect(ui.printed.filter((p) => p.includes('needs your approval'))).toHaveLength(1);
    ui.answer();
    expect(await first).toEqual({ behavior: 'allow' });
    expect(await second).toEqual({ behavior: 'allow' });
    // The saved rule is matched against the next command in the Bash check's worker thread.
    await eventually(() => ui.open, { what: 'the third question' });
    expect(ui.printed.filter((p) => p.includes('needs your approval'))).toHaveLength(2);
    ui.answer();
    expect(await third).toEqual({ behavior: 'deny', message: 'The user declined this call and said: run the tests first' });
  });

  test('a call cancelled while its question is open is denied and the question withdrawn', async () => {
    const ui = scriptedFrontEnd([undefined]);
    const box = makeSandbox();
    const asker = createPermissionAsker({ frontEnd: ui.frontEnd, match: { cwd: box.cwd }, paint: (_s, t) => t, answered: () => undefined });
    const controller = new AbortController();
    const answer = asker.ask(request('x', 'make', controller.signal));
    await flush();
    controller.abort();
    ui.answer();
    expect(await answer).toEqual({ behavior: 'deny', message: 'The call was cancelled before the user answered.' });
    expect(ui.printed.join('')).toContain('question withdrawn');
  });
});

describe('finish lines', () => {
  test('a call the turn ended without a result gets one "interrupted after" line, and no second line later', () => {
    let now = 0;
    const r = createTerminalRenderer({ color: false, now: () => now });
    const t = { chainId: 'c', depth: 0 } as const;
    r.render({ ...t, type: 'tool_start', toolUseId: 'x', name: 'Bash', input: { command: 'sleep 9' } });
    now = 3_200;
    const end = r.render({ ...t, type: 'terminal', reason: 'aborted_tools', turnCount: 1, usage: { inputTokens: 1, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 }, costUsd: 0, durationMs: 3_300 });
    expect(end.split('\n')[0]).toBe('  x Bash interrupted after 3.2s');
    expect(r.render({ ...t, type: 'tool_result', toolUseId: 'x', name: 'Bash', result: { type: 'tool_result', tool_use_id: 'x', content: 'late' }, durationMs: 3_400 })).toBe('');
  });
});
