/**
 * `interactive` reaches child loops: in an interactive run a child's PreToolUse 'defer' is
 * ignored like the parent's (nobody would resolve a child's tool_deferred ending); in a
 * non-interactive run the child's only deferred call ends the child tool_deferred.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/definitions.js';
import { subagentEventOf } from '../../src/agents/events.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import type { ScriptedServer } from '../../src/testing/scriptedServer.js';
import { defineTool } from '../../src/tools/defineTool.js';
import type { PreToolUseHook } from '../../src/tools/hooks.js';
import { message, text, toolUse } from '../loop/helpers.js';
import { hasToolResult, runTree, systemOf } from './helpers.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const worker = defineAgent({ name: 'worker', description: 'does the work', prompt: 'WORKER agent.' });

async function runWith(interactive: boolean) {
  let echoed = 0;
  const echo = defineTool({
    name: 'echo',
    description: 'Echoes',
    inputSchema: z.strictObject({ say: z.string() }),
    isConcurrencySafe: true,
    call: ({ say }: { say: string }) => {
      echoed++;
      return say;
    },
  });
  const deferEcho: PreToolUseHook = (input) => (input.toolName === 'echo' ? { decision: 'defer' } : undefined);
  const script = (request: MessagesRequest): ScriptedResponse => {
    if (systemOf(request) === 'WORKER agent.') {
      return hasToolResult(request) ? message([text('child done')]) : message([toolUse('echo', { say: 'hi' }, 'toolu_echo')]);
    }
    return hasToolResult(request)
      ? message([text('parent done')])
      : message([toolUse('Agent', { description: 'work', prompt: 'do it', subagent_type: 'worker' }, 'toolu_agent')]);
  };
  const run = await runTree(script, { tools: [echo], interactive, hooks: { preToolUse: [deferEcho] }, agents: { definitions: [worker] } });
  server = run.server;
  const childEvents = run.events.flatMap((e) => {
    const data = subagentEventOf(e);
    return data ? [data.event] : [];
  });
  return { run, echoed, childEvents };
}

describe('interactive is inherited by child loops', () => {
  it('interactive: the child ignores the defer (with a warning) and runs its call', async () => {
    const { run, echoed, childEvents } = await runWith(true);
    expect(echoed).toBe(1);
    expect(childEvents.some((e) => e.type === 'warning' && e.code === 'tool_defer_ignored')).toBe(true);
    expect(childEvents.find((e) => e.type === 'terminal')).toMatchObject({ reason: 'completed', lastAssistantText: 'child done' });
    expect(run.terminal.reason).toBe('completed');
  });

  it('not interactive: the child ends tool_deferred without running its only call', async () => {
    const { echoed, childEvents } = await runWith(false);
    expect(echoed).toBe(0);
    expect(childEvents.find((e) => e.type === 'terminal')).toMatchObject({ reason: 'tool_deferred' });
  });
});
