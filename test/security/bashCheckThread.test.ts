/**
 * The Bash permission check runs off the main thread (issue 15 §4: "the permission check of one
 * command … never blocks the event loop"). These tests use the built worker (`npm run build`).
 *
 * - The main thread stays free: a callback queued on the main thread after the check was asked
 *   for runs before its answer. That is an ordering, not a timing: a check computed on the main
 *   thread (even behind a Promise) answers before any such callback can run, as the control
 *   case shows.
 * - No answer is never an allow: a worker that dies or throws mid-check fails the check with a
 *   typed error, the command asks (a denial where nobody can answer), and the next check gets a
 *   fresh worker.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { answerBashCheck, type BashCheckRequest } from '../../src/permissions/bashCheck.js';
import { BashCheckFailed, createBashCheckThread, type BashChecker } from '../../src/permissions/bashCheckThread.js';
import { createPermissionPolicy, decidePermission } from '../../src/permissions/createPermissionPolicy.js';
import type { PermissionMode } from '../../src/permissions/modes.js';
import { parseRuleStrings } from '../../src/permissions/rules.js';
import type { CanUseToolContext } from '../../src/tools/hooks.js';
import { MAX_PARSED_COMMAND_CHARS } from '../../src/tools/builtin/shellParse.js';

const ws = realpathSync(mkdtempSync(join(tmpdir(), 'rxagent-sec-check-')));
writeFileSync(join(ws, 'a.txt'), 'x\n');
const thread = createBashCheckThread();
const crashing = createBashCheckThread({ workerUrl: new URL('./fixtures/crashingBashWorker.mjs', import.meta.url) });
afterAll(async () => {
  await Promise.all([thread.stop(), crashing.stop()]);
  rmSync(ws, { recursive: true, force: true });
});

const RULES = parseRuleStrings({ deny: ['Bash(rm:*)', 'Read(secrets/**)'] });
/** Near the parser's node cap: the slowest command that is still classified in full. */
const LARGE = `cat ${'a* '.repeat(700)}`;
const decide = (command: string, mode: PermissionMode = 'default'): BashCheckRequest & { kind: 'decide' } => ({ kind: 'decide', mode, rules: RULES, command, ctx: { cwd: ws } });
const callCtx = (signal = new AbortController().signal): CanUseToolContext => ({ toolUseId: 't1', shared: {}, signal, hookDecision: undefined, hookReason: undefined });

/** Which comes first: the check's answer, or a callback queued on the main thread right after asking. */
async function firstOf(answer: () => Promise<unknown>): Promise<string[]> {
  const order: string[] = [];
  const answered = answer().then(() => order.push('answer'));
  setImmediate(() => order.push('main thread callback'));
  await answered;
  await new Promise((resolve) => setImmediate(resolve));
  return order;
}

describe('the main thread is free while a Bash command is checked', () => {
  test('control: a check computed on the main thread answers before a queued callback runs', async () => {
    const inline: BashChecker = { check: (request) => Promise.resolve(answerBashCheck(request as BashCheckRequest)) as never, known: () => undefined };
    expect(await firstOf(() => inline.check(decide(LARGE)))).toEqual(['answer', 'main thread callback']);
  });

  test('the worker: the queued callback runs first, and the verdict is the one decidePermission gives', async () => {
    let verdict: unknown;
    expect(await firstOf(async () => (verdict = (await thread.check(decide(`${LARGE}#1`))).verdict))).toEqual(['main thread callback', 'answer']);
    expect(verdict).toEqual(decidePermission('default', RULES, { toolName: 'Bash', input: { command: `${LARGE}#1` } }, { cwd: ws }));
  });

  test('through the permission policy, in each mode, with the same decisions as inline', async () => {
    for (const mode of ['default', 'plan', 'acceptEdits', 'bypassPermissions', 'dontAsk'] as const) {
      const policy = createPermissionPolicy({ mode, rules: RULES, cwd: ws, bashCheck: thread });
      for (const command of [`${LARGE}#${mode}`, 'cat a.txt', 'rm -rf .', 'env /bin/rm x', 'touch b', '$x a']) {
        const inline = decidePermission(mode, RULES, { toolName: 'Bash', input: { command } }, { cwd: ws });
        const order: string[] = [];
        const result = Promise.resolve(policy('Bash', { command }, callCtx())).then((r) => (order.push('answer'), r));
        setImmediate(() => order.push('main thread callback'));
        const answer = await result;
        // Only the large one takes the worker longer than a turn of the main loop; a tiny one may come back first.
        if (command.startsWith(LARGE)) expect(order[0], command).toBe('main thread callback');
        expect(answer.behavior, `${mode}: ${command}`).toBe(inline.behavior === 'ask' ? 'deny' : inline.behavior); // nobody to ask here
      }
    }
  });

  test('the answer brings the command facts the Bash tool needs (its sandbox access), kept by text', async () => {
    const command = 'cat a.txt #facts';
    expect(thread.known(command)).toBeUndefined();
    await thread.check(decide(command));
    expect(thread.known(command)).toEqual({ readOnly: true, commandNames: ['cat'] });
    await thread.check({ kind: 'facts', command: 'touch x' });
    expect(thread.known('touch x')).toEqual({ readOnly: false, commandNames: ['touch'] });
  });

  test('a command longer than the parser reads is refused before it is sent, with a clear reason', async () => {
    const error = await thread.check(decide('a'.repeat(MAX_PARSED_COMMAND_CHARS + 1))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BashCheckFailed);
    expect(error).toMatchObject({ failure: 'too_long', message: expect.stringContaining('too long to check') });
  });

  test('an abort ends the wait at once; the late answer is dropped and the thread keeps working', async () => {
    const controller = new AbortController();
    const waiting = thread.check(decide(`${LARGE}#abort`), controller.signal).catch((e: unknown) => e);
    controller.abort(new Error('cancelled by the test'));
    expect(await waiting).toMatchObject({ message: 'cancelled by the test' });
    expect((await thread.check(decide('cat a.txt #after-abort'))).verdict.behavior).toBe('allow');
    const policy = createPermissionPolicy({ mode: 'default', rules: RULES, cwd: ws, bashCheck: thread });
    const gone = new AbortController();
    gone.abort();
    expect(await policy('Bash', { command: 'cat a.txt' }, callCtx(gone.signal))).toMatchObject({ behavior: 'deny', message: expect.stringContaining('cancelled') });
  });
});

describe('a check without an answer is never an allow', () => {
  test.each([
    ['exits', 'crash-now', 'stopped (exit code 7)'],
    ['throws', 'throw-now', 'crashed: the checker blew up'],
  ])('a worker that %s mid-check fails it with BashCheckFailed; the next check gets a fresh worker', async (_how, marker, said) => {
    const error = await crashing.check(decide(`cat a.txt # ${marker}`)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BashCheckFailed);
    expect(error).toMatchObject({ failure: 'worker_failed', message: expect.stringContaining(said) });
    expect((await crashing.check(decide('cat a.txt # fine'))).verdict.behavior).toBe('allow');
  });

  test.each(['default', 'bypassPermissions', 'dontAsk', 'plan'] as const)('in %s mode the command is refused non-interactively, and asks interactively', async (mode) => {
    const refused = createPermissionPolicy({ mode, cwd: ws, bashCheck: crashing });
    const answer = await refused('Bash', { command: 'cat a.txt # crash-now' }, callCtx());
    expect(answer.behavior).toBe('deny');
    expect(answer).toMatchObject({ message: expect.stringContaining('cannot run unchecked') });
    if (mode === 'dontAsk') return;
    const asked: string[] = [];
    const interactive = createPermissionPolicy({ mode, cwd: ws, bashCheck: crashing, interactive: true, ask: (request) => (asked.push(request.reason), { behavior: 'deny' }) });
    await interactive('Bash', { command: 'cat a.txt # crash-now' }, callCtx());
    expect(asked).toEqual([expect.stringContaining('stopped (exit code 7)')]);
  });
});
