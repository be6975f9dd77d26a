/**
 * A background subagent whose launching Agent call is stopped before its result reaches the
 * model. The scheduler tells the model the call "had already started and was stopped" (max_tokens)
 * or was interrupted; the child is then cut too, so no notification later contradicts that. A
 * call whose "launched" result was delivered keeps its child (the normal background case).
 */
import { from, lastValueFrom, toArray, type ObservableInput } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentTool, type SubagentLauncher } from '../../src/agents/agentTool.js';
import { defineAgent } from '../../src/agents/definitions.js';
import { subagentEventOf } from '../../src/agents/events.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import type { ScriptedServer } from '../../src/testing/scriptedServer.js';
import { gate } from '../../src/testing/gate.js';
import { truncatedStartedCallText } from '../../src/tools/errorTexts.js';
import type { PostToolUseInput } from '../../src/tools/hooks.js';
import { message, text, toolUse } from '../loop/helpers.js';
import { lastUserText, PARENT_SYSTEM, runTree, systemOf } from './helpers.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const slow = defineAgent({ name: 'slow', description: 'answers slowly', prompt: 'SLOW agent.' });
const launch = toolUse('Agent', { description: 'slow job', prompt: 'do the slow job', subagent_type: 'slow', run_in_background: true }, 'toolu_bg');
/**
 * Keeps the Agent call running (its PostToolUse step) after it returned "launched", until the call
 * is stopped. It waits for that event, not for a duration: a fixed delay raced the end of the
 * response on a busy machine (the hook could finish first and the result be delivered).
 */
const heldUntilStopped = (input: PostToolUseInput) =>
  new Promise<undefined>((resolve) => {
    const signal = input.signal;
    if (signal === undefined) throw new Error('PostToolUse hooks receive the call signal');
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });

describe('a background launch whose call is stopped', () => {
  it('max_tokens while the call is still running: the model is told it was stopped, and the child is cut without a notification', async () => {
    let parentCalls = 0;
    // The parent's response ends only once the child's request has arrived (the child started),
    // and the child answers only after the parent's next request: ordered by events, not delays.
    const childStarted = gate();
    const parentContinued = gate();
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) === 'SLOW agent.') {
        childStarted.open();
        return message([text('SLOW answer')], { endAfter: parentContinued.promise });
      }
      parentCalls++;
      if (parentCalls === 2) parentContinued.open();
      // The response is cut by the output limit right after the Agent block.
      if (parentCalls === 1) return message([launch], { stopReason: 'max_tokens', endAfter: childStarted.promise });
      return message([text(`parent reply ${parentCalls}`)]);
    };
    const run = await runTree(script, { agents: { definitions: [slow] }, hooks: { postToolUse: [heldUntilStopped] } });
    server = run.server;
    const parents = server.requests.filter((r) => systemOf(r.body!) === PARENT_SYSTEM);
    // The second request carries the "started and stopped" result; no notification ever follows.
    expect(lastUserText(parents[1]!.body!)).toContain(truncatedStartedCallText('Agent'));
    expect(parents).toHaveLength(2);
    for (const p of parents) expect(lastUserText(p.body!)).not.toContain('SLOW answer');
    expect(run.terminal.reason).toBe('completed');
    expect(run.terminal.lastAssistantText).toBe('parent reply 2');
    // The child had started (its request was sent) and was cut: its connection closed by us.
    const child = server.requests.filter((r) => systemOf(r.body!) === 'SLOW agent.');
    expect(child).toHaveLength(1);
    await server.waitForClientClose(child[0]!.index);
    const childTerminals = run.events.filter((e) => subagentEventOf(e)?.event.type === 'terminal');
    expect(childTerminals).toHaveLength(0);
    expect(server.requests.every((r) => r.validationErrors.length === 0)).toBe(true);
  });

  it('a call that delivered "launched" keeps its child, whose notification arrives', async () => {
    let parentCalls = 0;
    // The child answers only after the parent's second request (the "launched" result) arrived;
    // a 100 ms delay could end first on a busy machine and put the answer in that request.
    const parentContinued = gate();
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) === 'SLOW agent.') return message([text('SLOW answer')], { endAfter: parentContinued.promise });
      parentCalls++;
      if (parentCalls === 2) parentContinued.open();
      if (parentCalls === 1) return message([launch]);
      return message([text(`parent reply ${parentCalls}`)]);
    };
    const run = await runTree(script, { agents: { definitions: [slow] } });
    server = run.server;
    const parents = server.requests.filter((r) => systemOf(r.body!) === PARENT_SYSTEM);
    expect(lastUserText(parents[1]!.body!)).toMatch(/Started background subagent/);
    expect(parents.some((p) => lastUserText(p.body!).includes('SLOW answer'))).toBe(true);
    expect(run.terminal.reason).toBe('completed');
  });

  it('a call whose signal is already aborted starts no child (the launcher is never asked)', async () => {
    const launched: string[] = [];
    const launcher: SubagentLauncher = {
      definitions: new Map([[slow.name, slow]]),
      foreground: () => {
        throw new Error('not used');
      },
      background: (_definition, _input, parentToolUseId) => {
        launched.push(parentToolUseId);
        return 'agent-1';
      },
    };
    const tool = createAgentTool(launcher);
    const input = { description: 'slow job', prompt: 'do the slow job', subagent_type: 'slow', run_in_background: true };
    const ctxFor = (signal: AbortSignal) => ({ signal, toolUseId: 'toolu_bg', shared: {}, progress: () => undefined });
    const aborted = new AbortController();
    aborted.abort();
    const stopped = await lastValueFrom(from(tool.call(input, ctxFor(aborted.signal)) as ObservableInput<unknown>).pipe(toArray()));
    expect(stopped).toEqual([]);
    expect(launched).toEqual([]);
    // The same call with a live signal launches.
    const live = await lastValueFrom(from(tool.call(input, ctxFor(new AbortController().signal)) as ObservableInput<unknown>).pipe(toArray()));
    expect(live).toMatchObject([{ type: 'outcome', output: { status: 'launched', agentId: 'agent-1' } }]);
    expect(launched).toEqual(['toolu_bg']);
  });
});
