/** A subagent's requests are cached as its parent's are (issue 16): the tree passes `promptCaching` down. */
import { afterEach, describe, expect, it } from 'vitest';
import { GENERAL_PURPOSE_AGENT } from '../../src/agents/definitions.js';
import { countBreakpoints } from '../../src/protocol/cacheBreakpoints.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { message, text, toolUse } from '../loop/helpers.js';
import { hasToolResult, PARENT_SYSTEM, runTree, systemOf } from './helpers.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const script = (request: MessagesRequest): ScriptedResponse => {
  if (systemOf(request) !== PARENT_SYSTEM) return message([text('child answer')]);
  return hasToolResult(request) ? message([text('done')]) : message([toolUse('Agent', { description: 'a job', prompt: 'do it', subagent_type: 'general-purpose' }, 'toolu_c')]);
};
const childRequest = (s: ScriptedServer) => s.requests.find((r) => systemOf(r.body!) === GENERAL_PURPOSE_AGENT.prompt)!.body!;

describe('prompt caching down the tree', () => {
  it('on in the parent: the child request carries cache breakpoints too', async () => {
    const run = await runTree(script, { promptCaching: true });
    server = run.server;
    expect(run.terminal.reason).toBe('completed');
    expect(countBreakpoints(server.requests[0]!.body!)).toBeGreaterThan(0);
    const child = childRequest(server);
    expect(countBreakpoints(child)).toBeGreaterThan(0);
    expect(child.system).toEqual([expect.objectContaining({ type: 'text', text: GENERAL_PURPOSE_AGENT.prompt, cache_control: { type: 'ephemeral' } })]);
  });

  it('on by default (as Claude Code sends them): system, last tool and last message of each request, the child too', async () => {
    const run = await runTree(script);
    server = run.server;
    expect(server.requests.map((r) => countBreakpoints(r.body!))).toEqual([3, 3, 3]);
  });

  it('off: neither request has one', async () => {
    const run = await runTree(script, { promptCaching: false });
    server = run.server;
    expect(server.requests.map((r) => countBreakpoints(r.body!))).toEqual([0, 0, 0]);
  });
});
