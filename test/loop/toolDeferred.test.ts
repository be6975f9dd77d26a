/**
 * The `tool_deferred` terminal (SPEC §3, controlled): a PreToolUse hook answering 'defer' for
 * the only tool call of a response in a non-interactive run. Over HTTP; a resume of the
 * transcript gives the unanswered call a synthetic result.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TranscriptRecord } from '../../src/loop/seams.js';
import { isControlledTerminal } from '../../src/loop/types.js';
import type { ContentBlock } from '../../src/protocol/content.js';
import { createHookRunners } from '../../src/hooks/createHookRunners.js';
import { interpretJSON } from '../../src/hooks/interpretHookOutput.js';
import { rebuildMessages, SESSION_ENDED_TOOL_RESULT } from '../../src/session/rebuild.js';
import { toSessionRecords } from '../../src/session/transcriptSink.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import { gate } from '../../src/testing/gate.js';
import { defineTool } from '../../src/tools/defineTool.js';
import type { PreToolUseHook } from '../../src/tools/hooks.js';
import { message, runOverHttp, text, toolUse } from './helpers.js';

function recordingTool(name: string, safe: boolean) {
  const calls: string[] = [];
  const tool = defineTool({
    name,
    description: `${name} tool`,
    inputSchema: z.strictObject({ x: z.string() }),
    isConcurrencySafe: safe,
    call: (input: { x: string }) => {
      calls.push(input.x);
      return `${name} ${input.x}`;
    },
  });
  return { tool, calls };
}

const deferDeploys: PreToolUseHook = ({ toolName }) =>
  toolName === 'deploy' ? { decision: 'defer', reason: 'needs a human sign-off' } : undefined;

describe('tool_deferred', () => {
  it('the only call of a response is not run; the loop ends tool_deferred with the tool_use unanswered', async () => {
    const deploy = recordingTool('deploy', false);
    const records: TranscriptRecord[] = [];
    const r = await runOverHttp([message([text('deploying'), toolUse('deploy', { x: 'prod' }, 'toolu_d')]), message([text('never')])], {
      tools: [deploy.tool],
      hooks: { preToolUse: [deferDeploys] },
      transcript: { append: async (batch) => void records.push(...batch) },
    });
    expect(r.terminal.reason).toBe('tool_deferred');
    expect(isControlledTerminal(r.terminal.reason)).toBe(true);
    expect(r.terminal.error).toBeUndefined();
    expect(deploy.calls).toEqual([]);
    expect(r.requests).toHaveLength(1);
    expect(r.terminal.deferredToolUse).toMatchObject({ id: 'toolu_d', name: 'deploy', input: { x: 'prod' } });
    // No result event for the deferred call, and no tool start.
    expect(r.events.filter((e) => e.type === 'tool_result' || e.type === 'tool_start')).toEqual([]);
    // The history ends with the assistant message holding the call.
    const messages = r.terminal.messages!;
    expect(messages.at(-1)).toMatchObject({ role: 'assistant' });
    expect((messages.at(-1)!.content as ContentBlock[]).map((b) => b.type)).toEqual(['text', 'tool_use']);

    // Resuming the caller's way: append the result; the request is valid.
    const resumed = [...messages, { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_d', content: 'deployed' }] }];
    expect(validateMessagesRequest({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: resumed })).toEqual([]);
    // Resuming from the transcript: the unanswered call gets a synthetic result.
    const session = toSessionRecords(records, { sessionId: 's', cwd: '/', version: 't', newUuid: randomUUID }, null);
    const view = rebuildMessages(session);
    const last = view.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(last.content).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_d', is_error: true, content: SESSION_ENDED_TOOL_RESULT })]);
  });

  it('a concurrency-safe call deferred while the response still streams waits for it, then defers', async () => {
    const look = recordingTool('deploy', true);
    // The response ends only after the hook deferred the call, so the deferral really happens
    // while it streams (a 60 ms end delay did not promise that on a loaded machine).
    const deferred = gate();
    const r = await runOverHttp([message([toolUse('deploy', { x: 'a' }, 'toolu_a')], { endAfter: deferred.promise })], {
      tools: [look.tool],
      hooks: { preToolUse: [(input) => (deferred.open(), deferDeploys(input))] },
    });
    expect(deferred.isOpen()).toBe(true);
    expect(r.terminal.reason).toBe('tool_deferred');
    expect(look.calls).toEqual([]);
  });

  it('with other calls in the same response the deferral is ignored with a warning: every call runs', async () => {
    const deploy = recordingTool('deploy', true);
    const other = recordingTool('other', true);
    const deferredFirst = gate();
    const r = await runOverHttp(
      [
        // The deferred call comes first and starts before the second block arrives (that block
        // waits for the hook's deferral, not for 40 ms).
        message([toolUse('deploy', { x: 'prod' }, 'toolu_d'), { ...toolUse('other', { x: 'y' }, 'toolu_o'), startAfter: deferredFirst.promise }]),
        message([text('done')]),
      ],
      { tools: [deploy.tool, other.tool], hooks: { preToolUse: [(input) => (input.toolName === 'deploy' && deferredFirst.open(), deferDeploys(input))] } },
    );
    expect(r.terminal.reason).toBe('completed');
    expect(deploy.calls).toEqual(['prod']);
    expect(other.calls).toEqual(['y']);
    expect(r.events.filter((e) => e.type === 'warning')).toMatchObject([{ code: 'tool_defer_ignored' }]);
    const results = r.requests[1]!.body!.messages.at(-1)!.content as ContentBlock[];
    expect(results.map((b) => (b.type === 'tool_result' ? [b.tool_use_id, b.is_error === true] : b.type))).toEqual([
      ['toolu_d', false],
      ['toolu_o', false],
    ]);
  });

  it('an interactive run ignores the deferral with a warning', async () => {
    const deploy = recordingTool('deploy', false);
    const r = await runOverHttp([message([toolUse('deploy', { x: 'prod' }, 'toolu_d')]), message([text('done')])], {
      tools: [deploy.tool],
      hooks: { preToolUse: [deferDeploys] },
      interactive: true,
    });
    expect(r.terminal.reason).toBe('completed');
    expect(deploy.calls).toEqual(['prod']);
    expect(r.events.find((e) => e.type === 'warning')).toMatchObject({ code: 'tool_defer_ignored', message: expect.stringMatching(/interactive/) });
  });

  it("a settings-file command hook's permissionDecision 'defer' is understood", async () => {
    expect(interpretJSON('PreToolUse', 'h', { hookSpecificOutput: { permissionDecision: 'defer', permissionDecisionReason: 'later' } })).toEqual({
      permissionDecision: 'defer',
      permissionDecisionReason: 'later',
      warnings: [],
    });
    const json = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'defer', permissionDecisionReason: 'sign-off' } });
    const runners = createHookRunners({
      hooks: { PreToolUse: [{ matcher: 'deploy', hooks: [{ type: 'command', command: `echo '${json}'` }] }] },
      cwd: process.cwd(),
      sessionId: 'defer-test',
    });
    const deploy = recordingTool('deploy', false);
    const r = await runOverHttp([message([toolUse('deploy', { x: 'prod' }, 'toolu_d')]), message([text('never')])], {
      tools: [deploy.tool],
      hooks: { ...runners.toolHooks },
    });
    expect(r.terminal.reason).toBe('tool_deferred');
    expect(deploy.calls).toEqual([]);
    expect(r.terminal.deferredToolUse?.id).toBe('toolu_d');
  });

  it("a hook's 'ask' wins over another hook's 'defer' (an ignored deferral must not skip the question)", async () => {
    const runners = createHookRunners({
      hooks: {
        PreToolUse: [
          { hooks: [{ type: 'callback', callback: () => ({ hookSpecificOutput: { permissionDecision: 'defer' } }) }] },
          { hooks: [{ type: 'callback', callback: () => ({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'check' } }) }] },
        ],
      },
      cwd: process.cwd(),
      sessionId: 'defer-test',
    });
    const answer = await runners.toolHooks.preToolUse![0]!({ toolName: 'deploy', toolInput: {}, toolUseId: 't', shared: {} });
    expect(answer).toMatchObject({ decision: 'ask', reason: 'check' });
  });
});
