/**
 * An MCP server's prompts in the interactive view, in a real terminal (tmux), against the real
 * server-everything over stdio: /help lists them with their arguments and descriptions, Tab
 * completes their names (`/mcp__everything__ar` → `/mcp__everything__args-prompt `), and the
 * completed command runs a turn whose prompt is the server's expansion, not the command text.
 */
import { describe, expect, test } from 'vitest';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { everythingStdio } from '../mcp/servers.js';
import { lastUserText, READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();

describe.skipIf(!hasTmux())('MCP prompts in /help and Tab completion, in tmux', () => {
  test('listed in /help, completed by Tab, expanded by the server when run', { timeout: 180_000 }, async () => {
    const script = (request: MessagesRequest): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: `Model got: ${lastUserText(request)}` }] });
    const scenario = await open({ script, args: ['--mcp-config', JSON.stringify({ mcpServers: { everything: everythingStdio() } })] });
    const { term, server } = scenario;
    await term.waitFor(READY);

    term.submit('/help');
    await term.waitFor('Keys:');
    // The whole pane: /help may be taller than the screen.
    const help = term.history();
    const section = help.slice(help.indexOf("MCP prompts (the server's prompt becomes your message):"), help.indexOf('Keys:'));
    expect(section).toMatch(/\n {2}\/mcp__everything__args-prompt <city> \[state\]\n {28}\S.*two arguments/);
    expect(section).toContain('/mcp__everything__simple-prompt');

    // One match: completed with the space for its arguments.
    term.type('/mcp__everything__ar');
    term.keys('Tab');
    await term.waitFor(/❯ \/mcp__everything__args-prompt\s*$/m);
    term.type('Paris');
    term.keys('Enter');
    await term.waitFor("Model got: What's weather in Paris?");
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]!.body!.messages)).not.toContain('/mcp__everything__args-prompt');

    // Several matches: Tab completes their common part (all of them are prompts of "everything").
    term.type('/mcp__ev');
    term.keys('Tab');
    await term.waitFor(/❯ \/mcp__everything__$/m);
  });
});
