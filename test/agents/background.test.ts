/** Background subagents over real HTTP: launch results, notifications at iteration boundaries, waiting, cutting. */
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/agents/definitions.js';
import { subagentEventOf } from '../../src/agents/events.js';
import type { ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { message, text, toolUse } from '../loop/helpers.js';
import { gate } from '../../src/testing/gate.js';
import { lastUserText, PARENT_SYSTEM, runTree, systemOf, waitForTool } from './helpers.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fast = defineAgent({ name: 'fast', description: 'answers quickly', prompt: 'FAST agent.' });
const slow = defineAgent({ name: 'slow', description: 'answers slowly', prompt: 'SLOW agent.' });
const bg = (id: string, type: string) =>
  toolUse('Agent', { description: `${type} job`, prompt: `do the ${type} job`, subagent_type: type, run_in_background: true }, id);

const parentRequests = (s: ScriptedServer) => s.requests.filter((r) => systemOf(r.body!) === PARENT_SYSTEM);

describe('background subagents', () => {
  it('run concurrently; their notifications reach the parent in completion order, and the parent waits for them', async () => {
    let parentCalls = 0;
    let childCalls = 0;
    // Ordered by events: FAST answers once both children asked and the parent sent its second
    // request (the "launched" results); SLOW answers once the parent's third request (with FAST's
    // notification) arrived. Delays (60 ms vs 400 ms) raced the parent's requests under load.
    const bothChildrenAsked = gate();
    const parentSecond = gate();
    const parentThird = gate();
    const script = (request: MessagesRequest): ScriptedResponse => {
      const system = systemOf(request);
      if (system !== PARENT_SYSTEM && ++childCalls === 2) bothChildrenAsked.open();
      if (system === 'SLOW agent.') return message([text('SLOW answer')], { endAfter: parentThird.promise });
      if (system === 'FAST agent.') return message([text('FAST answer')], { endAfter: Promise.all([bothChildrenAsked.promise, parentSecond.promise]) });
      parentCalls++;
      if (parentCalls === 2) parentSecond.open();
      if (parentCalls === 3) parentThird.open();
      if (parentCalls === 1) return message([bg('toolu_slow', 'slow'), bg('toolu_fast', 'fast')]);
      return message([text(`parent reply ${parentCalls}`)]);
    };
    const run = await runTree(script, { agents: { definitions: [fast, slow] } });
    server = run.server;
    expect(server.requests.every((r) => r.validationErrors.length === 0)).toBe(true);
    const parents = parentRequests(server);
    expect(parents).toHaveLength(4);
    // 2nd parent request: the two "launched" results, not the answers.
    const launched = lastUserText(parents[1]!.body!);
    expect(launched).toMatch(/Started background subagent agent-[0-9a-f]{8} \(slow: slow job\)/);
    expect(launched).toMatch(/Started background subagent agent-[0-9a-f]{8} \(fast: fast job\)/);
    expect(launched).not.toContain('answer');
    // The parent ended its turn twice while children ran; each time it waited for the next notification.
    expect(lastUserText(parents[2]!.body!)).toMatch(/^Background subagent agent-[0-9a-f]{8} \(fast: fast job\) finished\. Its final message:\nFAST answer/);
    expect(lastUserText(parents[3]!.body!)).toMatch(/^Background subagent agent-[0-9a-f]{8} \(slow: slow job\) finished\. Its final message:\nSLOW answer/);
    // Concurrency: both child requests arrived before the fast one finished.
    const children = server.requests.filter((r) => systemOf(r.body!) !== PARENT_SYSTEM);
    const fastChild = children.find((r) => systemOf(r.body!) === 'FAST agent.')!;
    expect(children).toHaveLength(2);
    expect(Math.max(...children.map((r) => r.receivedAt))).toBeLessThanOrEqual(fastChild.endedAt!);

    expect(run.terminal.reason).toBe('completed');
    expect(run.terminal.turnCount).toBe(4);
    expect(run.terminal.lastAssistantText).toBe('parent reply 4');
    expect(run.events.filter((e) => e.type === 'terminal')).toHaveLength(1);
    // Background child events are tool_progress of the launching calls.
    const childData = run.events.flatMap((e) => (subagentEventOf(e) ? [subagentEventOf(e)!] : []));
    expect(new Set(childData.map((d) => d.parentToolUseId))).toEqual(new Set(['toolu_slow', 'toolu_fast']));
    expect(childData.every((d) => d.background)).toBe(true);
    // No lifecycle plumbing of notifications leaks out.
    expect(run.events.some((e) => e.type === 'command_lifecycle')).toBe(false);
  });

  it('a notification that arrives during a tool round rides with that round\'s results (next iteration boundary)', async () => {
    let parentCalls = 0;
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) === 'FAST agent.') return message([text('FAST answer')]);
      parentCalls++;
      if (parentCalls === 1) return message([bg('toolu_fast', 'fast'), toolUse('wait', {}, 'toolu_wait')]);
      return message([text('done')]);
    };
    // The round's other tool finishes only after the child's terminal was reported (its
    // notification is queued right after), instead of sleeping 400 ms against a 20 ms child.
    const childDone = gate();
    const run = await runTree(
      script,
      { tools: [waitForTool(childDone.promise)], agents: { definitions: [fast] } },
      { onEvent: (e) => void (subagentEventOf(e)?.event.type === 'terminal' && childDone.open()) },
    );
    server = run.server;
    const parents = parentRequests(server);
    expect(parents).toHaveLength(2);
    const last = parents[1]!.body!.messages.at(-1)!;
    expect(Array.isArray(last.content) && last.content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text']);
    expect(lastUserText(parents[1]!.body!)).toContain('FAST answer');
    expect(run.terminal.turnCount).toBe(2);
    expect(server.requests.every((r) => r.validationErrors.length === 0)).toBe(true);
  });

  it('with waitForBackground false the parent ends at once and the running child is cut', async () => {
    let parentCalls = 0;
    const script = (request: MessagesRequest): ScriptedResponse => {
      // The child never answers: the run can only end if the parent does not wait for it.
      if (systemOf(request) === 'SLOW agent.') return message([text('SLOW answer')], { endAfter: gate().promise });
      parentCalls++;
      return parentCalls === 1 ? message([bg('toolu_slow', 'slow')]) : message([text('not waiting')]);
    };
    const run = await runTree(script, { agents: { definitions: [slow], waitForBackground: false } });
    server = run.server;
    expect(run.terminal.reason).toBe('completed');
    expect(parentRequests(server)).toHaveLength(2);
    const child = server.requests.find((r) => systemOf(r.body!) === 'SLOW agent.')!;
    await server.waitForClientClose(child.index);
    expect(child.closedByClient).toBe(true);
  });
});
