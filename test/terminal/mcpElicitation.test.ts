/**
 * An MCP server's form elicitation in the interactive view, in a real terminal (tmux), against
 * the real server-everything over stdio: Accept, then each field in turn (choices for booleans
 * and enums, shown by their titles; lines for the rest, Enter keeping a default or skipping an
 * optional field; what explains a field is printed whole above its one-line question, which the
 * terminal would cut); an answer that does not fit is asked again with the reason. The server's echo
 * of what it received, in the tool result the model gets, holds the values (not the titles).
 */
import { describe, expect, test } from 'vitest';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { hasToolResult } from '../agents/helpers.js';
import { everythingStdio } from '../mcp/servers.js';
import { READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();
const TOOL = 'mcp__everything__trigger-elicitation-request';

describe.skipIf(!hasTmux())('MCP elicitation as a form in tmux', () => {
  test('Accept, each field answered, a wrong answer asked again; the server gets the values', { timeout: 180_000 }, async () => {
    const script = (request: MessagesRequest): ScriptedResponse =>
      hasToolResult(request) ? { kind: 'message', blocks: [{ type: 'text', text: 'Thanks, noted.' }] } : { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_ask', name: TOOL, input: {} }] };
    const mcpConfig = JSON.stringify({ mcpServers: { everything: everythingStdio() } });
    const scenario = await open({ script, args: ['--mcp-config', mcpConfig, '--allowedTools', 'mcp__everything'] });
    const { term, server } = scenario;
    await term.waitFor(READY);
    term.submit('ask me');

    const asked = await term.waitFor(/MCP server "everything" asks: Please provide inputs for the following fields:[\s\S]*Answer it\?/);
    expect(asked).toMatch(/1\. Accept \(fill in the form\)\n\s+2\. Decline\n\s+3\. Cancel/);
    term.keys('1');
    /** Waits for the field's question, then answers it (keys, or a typed line and Enter). */
    const answer = async (question: string | RegExp, reply: { keys: string } | { line: string }) => {
      await term.waitFor(question);
      if ('keys' in reply) term.keys(reply.keys);
      else term.submit(reply.line);
    };
    await answer(/String: Your full, legal name[\s\S]*String:$/m, { line: 'Ada Lovelace' });
    await answer(/Boolean \[optional\]\n❯ 1\. yes/, { keys: '1' });
    await answer(/^String with default \[optional\] \[It was a dark and stormy night\.\]:$/m, { line: '' });
    await answer(/^String with email format \[optional\]:$/m, { line: '' });
    await answer(/^String with uri format \[optional\]:$/m, { line: '' });
    await answer(/^String with date format \[optional\]:$/m, { line: '' });
    await answer(/^Integer \[optional\] \[42\]:$/m, { line: '500' });
    // Refused with the reason, and asked again.
    await answer(/at most 100[\s\S]*Integer \[optional\] \[42\]:/, { line: '7' });
    await answer(/^Number in range 1-1000 \[optional\] \[3\.14\]:$/m, { line: '' });
    await answer(/Untitled Single Select Enum[^\n]*\n❯ 1\. Monica/, { keys: '4' });
    await answer(/some of: Guitar, Piano, Violin, Drums, Bass \(comma-separated\)[\s\S]*Untitled Multiple Select Enum \[optional\] \[Guitar\]:/, { line: 'Piano, Drums' });
    // Titled choices by their titles.
    const hero = await term.waitFor(/Titled Single Select Enum[^\n]*\n❯ 1\. Superman\n\s+2\. Green Lantern\n\s+3\. Wonder Woman/);
    expect(hero).not.toContain('hero-1');
    term.keys('3');
    await answer(/some of: fish-1 = Tuna, fish-2 = Salmon, fish-3 = Trout \(comma-separated\)[\s\S]*Titled Multiple Select Enum \[optional\] \[fish-1\]:/, { line: 'fish-1, fish-3' });
    await answer(/Legacy Titled Single Select Enum[^\n]*\n❯ 1\. Cats\n\s+2\. Dogs/, { keys: '2' });

    await term.waitFor('Thanks, noted.');
    const last = server.requests[1]!.body!.messages.at(-1)!.content;
    const toolResult = Array.isArray(last) ? last.find((b) => b.type === 'tool_result') : undefined;
    const texts = toolResult && toolResult.type === 'tool_result' && Array.isArray(toolResult.content) ? toolResult.content.map((b: { type: string; text?: string }) => b.text ?? '').join('\n') : '';
    // server-everything ends its result with the raw answer it received, as JSON.
    const echoed = JSON.parse(texts.slice(texts.indexOf('Raw result: ') + 'Raw result: '.length)) as { action: string; content: Record<string, unknown> };
    expect(echoed.action).toBe('accept');
    expect(echoed.content).toEqual({
      name: 'Ada Lovelace',
      check: true,
      firstLine: 'It was a dark and stormy night.',
      integer: 7,
      number: 3.14,
      untitledSingleSelectEnum: 'Chandler',
      untitledMultipleSelectEnum: ['Piano', 'Drums'],
      titledSingleSelectEnum: 'hero-3',
      titledMultipleSelectEnum: ['fish-1', 'fish-3'],
      legacyTitledEnum: 'pet-2',
    });
  });
});
