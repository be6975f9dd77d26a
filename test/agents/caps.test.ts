/**
 * The subagent caps over real HTTP (issue 15): the fan-out that once gave 930 agents in 6 s is
 * bounded at 10 running at once and 50 per run by default, counted over the whole tree; a
 * refused Agent call gets an error result and the run goes on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, GENERAL_PURPOSE_AGENT } from '../../src/agents/definitions.js';
import { DEFAULT_MAX_CONCURRENT_SUBAGENTS, DEFAULT_MAX_SUBAGENTS_PER_RUN } from '../../src/agents/subagentSlots.js';
import type { LoopEvent, LoopEventOf } from '../../src/loop/types.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { message, text, toolUse } from '../loop/helpers.js';
import { lastUserText, PARENT_SYSTEM, runTree, systemOf } from './helpers.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const agentCall = (id: string, type: string, background: boolean) =>
  toolUse('Agent', { description: `job ${id}`, prompt: `do job ${id}`, subagent_type: type, ...(background ? { run_in_background: true } : {}) }, id);

const parentResults = (events: readonly LoopEvent[]): LoopEventOf<'tool_result'>[] =>
  events.filter((e): e is LoopEventOf<'tool_result'> => e.type === 'tool_result');
const contentOf = (e: LoopEventOf<'tool_result'>): string => JSON.stringify(e.result.content);

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('subagent caps', () => {
  it('30 background calls in one response: 10 launch, 20 get an error result, the run completes', async () => {
    // Children answer only once the parent has all 30 results, so no child can end (and free a
    // slot) while the calls are still being decided.
    const allResults = deferred();
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) !== PARENT_SYSTEM) return message([text('child answer')], { endAfter: allResults.promise });
      if (request.messages.length === 1) return message(Array.from({ length: 30 }, (_, i) => agentCall(`toolu_${i}`, 'general-purpose', true)));
      return message([text('noted')]);
    };
    let seen = 0;
    const run = await runTree(script, {}, { onEvent: (e) => e.type === 'tool_result' && ++seen === 30 && allResults.resolve() });
    server = run.server;
    const results = parentResults(run.events);
    expect(results).toHaveLength(30);
    const launched = results.filter((r) => !r.result.is_error);
    const refused = results.filter((r) => r.result.is_error);
    expect(launched).toHaveLength(DEFAULT_MAX_CONCURRENT_SUBAGENTS);
    expect(refused).toHaveLength(30 - DEFAULT_MAX_CONCURRENT_SUBAGENTS);
    expect(refused.every((r) => contentOf(r).includes('10 subagents are already running'))).toBe(true);
    // Exactly the launched ones ever asked the model.
    expect(server.requests.filter((r) => systemOf(r.body!) === GENERAL_PURPOSE_AGENT.prompt)).toHaveLength(10);
    expect(run.terminal.reason).toBe('completed');
    expect(server.requests.every((r) => r.validationErrors.length === 0)).toBe(true);
  });

  it('the 51st subagent of a run is refused although none runs then (foreground, 10 at a time)', async () => {
    let batch = 0;
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) !== PARENT_SYSTEM) return message([text('child answer')]);
      if (batch === 6) return message([text('all done')]);
      const b = batch++;
      return message(Array.from({ length: 10 }, (_, i) => agentCall(`toolu_${b}_${i}`, 'general-purpose', false)));
    };
    const run = await runTree(script);
    server = run.server;
    const results = parentResults(run.events);
    expect(results).toHaveLength(60);
    expect(results.filter((r) => !r.result.is_error)).toHaveLength(DEFAULT_MAX_SUBAGENTS_PER_RUN);
    const refused = results.filter((r) => r.result.is_error);
    expect(refused.map((r) => r.toolUseId)).toEqual(Array.from({ length: 10 }, (_, i) => `toolu_5_${i}`));
    expect(refused.every((r) => contentOf(r).includes('this run has already started 50 subagents'))).toBe(true);
    expect(server.requests.filter((r) => systemOf(r.body!) === GENERAL_PURPOSE_AGENT.prompt)).toHaveLength(50);
    expect(run.terminal.reason).toBe('completed');
  });

  it('the caps count the whole tree: a child holding the only slot cannot start a grandchild', async () => {
    const grand = defineAgent({ name: 'grand', description: 'the grandchild', prompt: 'GRAND agent.' });
    const script = (request: MessagesRequest): ScriptedResponse => {
      const system = systemOf(request);
      if (system === GENERAL_PURPOSE_AGENT.prompt) {
        return request.messages.length === 1 ? message([agentCall('toolu_g', 'grand', false)]) : message([text(`child saw: ${lastUserText(request)}`)]);
      }
      return request.messages.length === 1 ? message([agentCall('toolu_c', 'general-purpose', false)]) : message([text('top done')]);
    };
    const run = await runTree(script, { agents: { definitions: [grand], maxConcurrent: 1 } });
    server = run.server;
    expect(server.requests.some((r) => systemOf(r.body!) === 'GRAND agent.')).toBe(false);
    // The child got the refusal as its Agent call's error result, and answered with it.
    const childResult = parentResults(run.events).find((r) => r.toolUseId === 'toolu_c');
    expect(childResult && !childResult.result.is_error).toBe(true);
    expect(contentOf(childResult!)).toContain('1 subagent is already running');
    // The slot is the parent's again once the child ended: the run completes normally.
    expect(run.terminal.reason).toBe('completed');
  });
});
