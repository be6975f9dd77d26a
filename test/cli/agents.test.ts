/**
 * Subagents through the built command: `--agents` definitions, the Agent tool allowed in a
 * non-interactive run, child lines carrying `parent_tool_use_id`, the child's answer as the
 * parent's tool result, background notifications, and child transcripts kept beside (not in)
 * the parent's session.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { OutputLine } from '../../src/cli/outputSchemas.js';
import { costOf, priceFor } from '../../src/loop/pricing.js';
import { DEFAULT_MODEL } from '../../src/context/modelTable.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { gate } from '../../src/testing/gate.js';
import { workspaceSlug } from '../../src/session/paths.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, runAgainst } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const HELPER_PROMPT = 'You are the HELPER agent.';
const AGENTS = JSON.stringify({ helper: { description: 'Looks things up', prompt: HELPER_PROMPT, tools: ['Read'] } });

const systemOf = (r: MessagesRequest): string => (typeof r.system === 'string' ? r.system : (r.system ?? []).map((b) => b.text).join(''));
const isChild = (r: MessagesRequest) => systemOf(r) === HELPER_PROMPT;
const text = (t: string, extra: Partial<ScriptedResponse> = {}): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: t }], ...extra }) as ScriptedResponse;
const toolCall = (id: string, name: string, input: Record<string, unknown>): ScriptedResponse => ({
  kind: 'message',
  blocks: [{ type: 'tool_use', id, name, input }],
});
/** The text of every block of the request's last message (tool results included). */
function lastUserText(r: MessagesRequest): string {
  const content = r.messages[r.messages.length - 1]!.content;
  if (typeof content === 'string') return content;
  return content
    .map((b) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? (typeof b.content === 'string' ? b.content : JSON.stringify(b.content)) : ''))
    .join('\n');
}
const sessionDirOf = (home: string, cwd: string) => join(home, '.rxagent', 'projects', workspaceSlug(cwd));

describe.concurrent('subagents through the command', () => {
  test('a foreground Agent call: child lines carry parent_tool_use_id, its answer is the tool result, exit 0', async () => {
    const box = makeSandbox({ 'notes.txt': 'the secret is 7\n' });
    let childCalls = 0;
    let parentCalls = 0;
    const script = (request: MessagesRequest): ScriptedResponse | undefined => {
      if (isChild(request)) {
        childCalls += 1;
        return childCalls === 1 ? toolCall('toolu_child_read', 'Read', { file_path: 'notes.txt' }) : text('CHILD: the secret is 7');
      }
      parentCalls += 1;
      if (parentCalls === 1) return toolCall('toolu_agent_1', 'Agent', { description: 'find the secret', prompt: 'Read notes.txt and report the secret.', subagent_type: 'helper' });
      return parentCalls === 2 ? text('The helper says 7.') : undefined;
    };
    const run = await runAgainst(script, ['-p', 'what is the secret?', '--output-format', 'stream-json', '--verbose', '--agents', AGENTS], box);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = parseLines(run.stdout);
    const init = lines[0]!;
    expect(init.type === 'system' && init.subtype === 'init' && init.tools).toEqual(['Read', 'Write', 'Edit', 'Glob', 'Grep', 'Bash', 'Agent']);
    // The child got only its definition's tools; the parent got Agent too.
    const childRequest = run.server.requests.find((r) => isChild(r.body!))!;
    expect(childRequest.body!.tools?.map((t) => t.name)).toEqual(['Read']);

    const ofChild = lines.filter((l): l is Extract<OutputLine, { parent_tool_use_id: string | null }> => 'parent_tool_use_id' in l && l.parent_tool_use_id === 'toolu_agent_1');
    expect(ofChild.map((l) => l.type)).toEqual(['assistant', 'user', 'assistant']);
    const childResult = ofChild[1]!;
    expect(childResult.type === 'user' && JSON.stringify(childResult.message.content)).toContain('the secret is 7');
    const topLevel = lines.filter((l) => !('parent_tool_use_id' in l) || l.parent_tool_use_id === null);
    expect(topLevel.map((l) => l.type)).toEqual(['system', 'assistant', 'user', 'assistant', 'result']);
    const agentResult = topLevel[2]!;
    expect(agentResult.type === 'user' && JSON.stringify(agentResult.message.content)).toContain('CHILD: the secret is 7');
    const result = lines[lines.length - 1]!;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'The helper says 7.', terminal_reason: 'completed' });
    // The tree's cost: the parent's own usage (the result's usage) prices below it.
    if (result.type !== 'result') throw new Error('no result line');
    const parentOnly = costOf(result.usage, priceFor(DEFAULT_MODEL));
    expect(parentOnly).toBeGreaterThan(0);
    const childCost = Number(/\$(\d+\.\d+)\]/.exec(JSON.stringify(agentResult.type === 'user' ? agentResult.message.content : ''))?.[1]);
    expect(childCost).toBeGreaterThan(0);
    expect(result.total_cost_usd).toBeCloseTo(parentOnly + childCost, 4);

    // The child's records are in their own file under the parent's session; the parent's
    // transcript has the child's answer (as the tool result) but none of the child's own calls.
    const dir = sessionDirOf(box.home, box.cwd);
    const parentTranscript = readFileSync(join(dir, `${init.session_id}.jsonl`), 'utf8');
    expect(parentTranscript).toContain('CHILD: the secret is 7');
    expect(parentTranscript).not.toContain('toolu_child_read');
    const childFiles = readdirSync(join(dir, init.session_id, 'subagents')).filter((f) => f.endsWith('.jsonl'));
    expect(childFiles).toHaveLength(1);
    const childTranscript = readFileSync(join(dir, init.session_id, 'subagents', childFiles[0]!), 'utf8');
    expect(childTranscript).toContain('toolu_child_read');
    expect(childTranscript).toContain('CHILD: the secret is 7');
    expect(readdirSync(dir).filter((f) => f.endsWith('.jsonl'))).toEqual([`${init.session_id}.jsonl`]);
  });

  test('a background child: launched at once, its notification reaches the parent, exit 0', async () => {
    const box = makeSandbox();
    let parentCalls = 0;
    // The child answers once the parent's second request (the "launched" result) is in, so the
    // answer is never in that request (a 150 ms delay could be outrun by a loaded machine).
    const launchedSent = gate();
    const script = (request: MessagesRequest): ScriptedResponse | undefined => {
      if (isChild(request)) return text('BG: all done', { endAfter: launchedSent.promise });
      parentCalls += 1;
      if (parentCalls === 2) launchedSent.open();
      if (parentCalls === 1) {
        return toolCall('toolu_agent_bg', 'Agent', { description: 'slow job', prompt: 'Do the slow job.', subagent_type: 'helper', run_in_background: true });
      }
      if (parentCalls === 2) return text('Started it.');
      return parentCalls === 3 ? text('The job reported: all done.') : undefined;
    };
    const run = await runAgainst(script, ['-p', 'start the job', '--output-format', 'stream-json', '--agents', AGENTS], box);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = parseLines(run.stdout);
    const parents = run.server.requests.filter((r) => !isChild(r.body!));
    expect(parents).toHaveLength(3);
    expect(lastUserText(parents[1]!.body!)).toMatch(/Started background subagent/);
    expect(lastUserText(parents[2]!.body!)).toContain('BG: all done');
    const childLines = lines.filter((l) => 'parent_tool_use_id' in l && l.parent_tool_use_id === 'toolu_agent_bg');
    expect(childLines.map((l) => l.type)).toEqual(['assistant']);
    expect(lines.filter((l) => l.type === 'result')).toHaveLength(1);
    expect(lines[lines.length - 1]).toMatchObject({ type: 'result', subtype: 'success', result: 'The job reported: all done.' });
  });

  test('--tools without Agent leaves subagents out; --disallowedTools Agent does not offer it (as in Claude Code)', async () => {
    const box = makeSandbox();
    const noAgent = await runAgainst([text('fine')], ['-p', 'hi', '--tools', 'Read', '--output-format', 'json'], box);
    expect(noAgent.code).toBe(0);
    expect(noAgent.server.requests[0]!.body!.tools?.map((t) => t.name)).toEqual(['Read']);

    const denied = await runAgainst(
      [toolCall('toolu_agent_x', 'Agent', { description: 'x', prompt: 'x', subagent_type: 'helper' }), text('ok, not allowed')],
      ['-p', 'hi', '--agents', AGENTS, '--disallowedTools', 'Agent', '--output-format', 'json'],
      box,
    );
    expect(denied.code).toBe(0);
    expect(denied.server.requests).toHaveLength(2);
    expect(denied.server.requests[0]!.body!.tools?.map((t) => t.name)).not.toContain('Agent');
    // A call to it anyway is an unknown tool: an error result, and the run goes on.
    const second = JSON.stringify(denied.server.requests[1]!.body!.messages.at(-1));
    expect(second).toContain('"is_error":true');
    expect(second).toContain('Agent');
    const result = parseLines(denied.stdout)[0]!;
    expect(result.type === 'result' && result.subtype).toBe('success');
  });

  test('an invalid --agents value is one line on stderr, exit 1, no request', async () => {
    const box = makeSandbox();
    const run = await runAgainst([text('unused')], ['-p', 'hi', '--agents', '{"bad": {"prompt": "p"}}'], box);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/--agents.*bad.*description/);
    expect(run.server.requests).toHaveLength(0);
  });
});
