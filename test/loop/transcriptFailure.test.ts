/** A transcript that cannot be written ends the run with a typed terminal; nothing runs unsaved. */
import { describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { TerminalEvent } from '../../src/loop/types.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import { message, syncModel, text, toolUse } from './helpers.js';

const echo = defineTool({
  name: 'echo',
  description: 'echo',
  inputSchema: z.strictObject({ x: z.string() }),
  isConcurrencySafe: true,
  call: ({ x }) => x,
});

function failingSink(failOnCall: number) {
  let calls = 0;
  return {
    calls: () => calls,
    append: async () => {
      calls++;
      if (calls === failOnCall) throw new Error('ENOSPC: no space left on device, write');
    },
  };
}

async function runWith(failOnCall: number) {
  const model = syncModel((n) => (n === 0 ? message([toolUse('echo', { x: 'a' })]) : message([text('done')])));
  const sink = failingSink(failOnCall);
  const events = await lastValueFrom(
    agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', tools: [echo], transcript: sink, deps: { callModel: model.callModel } }).pipe(
      toArray(),
    ),
  );
  return { events, terminal: events.at(-1) as TerminalEvent, requests: model.requests, sink };
}

describe('transcript write failure', () => {
  it('before the first request: no request is sent, the run ends turn_setup_failed naming the cause', async () => {
    const r = await runWith(1);
    expect(r.requests).toHaveLength(0);
    expect(r.terminal.type).toBe('terminal');
    expect(r.terminal.reason).toBe('turn_setup_failed');
    expect(r.terminal.error).toEqual({ kind: 'session', message: expect.stringContaining('ENOSPC') });
    expect(r.events.filter((e) => e.type === 'terminal')).toHaveLength(1);
  });

  it('while the tools run: the response asking for them cannot be saved, so no further request is sent', async () => {
    // The second append is the tool-use response's own record, written as soon as it is complete.
    const r = await runWith(2);
    expect(r.sink.calls()).toBe(2);
    expect(r.requests).toHaveLength(1);
    expect(r.terminal.reason).toBe('turn_setup_failed');
    expect(r.terminal.error?.message).toMatch(/could not write the session transcript: ENOSPC/);
    // The history is what was saved: the prompt, which can be resumed or sent as is.
    const history = r.terminal.messages ?? [];
    expect(validateMessagesRequest({ model: 'm', max_tokens: 10, messages: history })).toEqual([]);
    expect(history).toHaveLength(1);
  });

  it('before the next request: the tool batch is not followed by a model call, and the history is valid', async () => {
    const r = await runWith(3);
    expect(r.requests).toHaveLength(1); // the second request would have gone out unsaved
    expect(r.terminal.reason).toBe('turn_setup_failed');
    expect(r.terminal.error?.message).toMatch(/could not write the session transcript: ENOSPC/);
    const history = r.terminal.messages ?? [];
    // The tool_use has its result: the history can be resumed or sent as is.
    expect(validateMessagesRequest({ model: 'm', max_tokens: 10, messages: history })).toEqual([]);
    expect(history.at(-1)?.role).toBe('user');
  });

  it('at the end: a completed run whose last records cannot be saved ends with the error instead', async () => {
    const r = await runWith(4);
    expect(r.requests).toHaveLength(2);
    expect(r.terminal.reason).toBe('turn_setup_failed');
    expect(r.events.filter((e) => e.type === 'terminal')).toHaveLength(1);
    expect(r.terminal.messages?.at(-1)?.role).toBe('assistant');
  });
});

describe('a throwing context governor', () => {
  it('ends the run with turn_setup_failed (kind internal) and sends no request', async () => {
    const model = syncModel(() => message([text('never')]));
    const events = await lastValueFrom(
      agentLoop({
        model: 'claude-sonnet-4-5',
        prompt: 'go',
        contextGovernor: {
          beforeCall: () => {
            throw new Error('governor bug');
          },
          reactiveCompact: () => {
            throw new Error('unused');
          },
        },
        deps: { callModel: model.callModel },
      }).pipe(toArray()),
    );
    const terminal = events.at(-1) as TerminalEvent;
    expect(model.requests).toHaveLength(0);
    expect(terminal.reason).toBe('turn_setup_failed');
    expect(terminal.error).toEqual({ kind: 'internal', message: 'preparing the next request failed: governor bug' });
  });
});
