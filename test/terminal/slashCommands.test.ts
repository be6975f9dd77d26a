/**
 * Slash commands in a real terminal: handled by rxagent itself, never sent to the model (the
 * scripted server counts every request), Tab completes them, /compact runs the compaction now,
 * /clear starts a new session, and a custom command file becomes the prompt with its arguments.
 */
import { describe, expect, test } from 'vitest';
import { COMPACT_SYSTEM_PROMPT } from '../../src/context/compactPrompt.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { FIXTURE_SERVER } from '../mcp/servers.js';
import { lastUserText, normalize, READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const systemOf = (r: MessagesRequest) => (typeof r.system === 'string' ? r.system : (r.system ?? []).map((b) => b.text).join(''));
const text = (t: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: t }] });

const open = useScenarios();

/** What /help shows (the top of it): the commands, one per line. */
const HELP_FIXTURE = `❯ /help
Commands:
  /help                     list the commands and keys
  /clear                    start a new conversation (new session id); the old one stays resumable
  /compact [instructions]   summarize the conversation now, optionally with instructions for the summary
  /cost                     tokens, cost and time of this run
  /model [name]             show the model, or switch to another one (the conversation goes on)
  /resume [session id]      pick an earlier session of this directory and go on with it
  /status                   version, session, model, permission mode, settings files
  /permissions [allow|deny|ask <rule> | remove <rule>]
                            show the permission rules, or add/remove one in .claude/settings.local.json
  /agents                   the subagents the model can start
  /mcp [login <server>]     MCP server status; sign in to a remote server
  /exit                     leave (also Ctrl-D)
Custom commands (.claude/commands, .rxagent/commands):
  /greet                    Greets someone`;

describe.skipIf(!hasTmux())('slash commands in tmux', () => {
  test('handled locally, Tab-completed; /compact, /clear and a custom command do what they say', { timeout: 300_000 }, async () => {
    const script = (request: MessagesRequest): ScriptedResponse | undefined => {
      if (systemOf(request).startsWith(COMPACT_SYSTEM_PROMPT)) return text('SUMMARY: the user greeted twice.');
      const prompt = lastUserText(request);
      return text(`Answer to: ${prompt}`);
    };
    const mcpConfig = JSON.stringify({ mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] }, broken: { command: '/nonexistent/nosuch-mcp-server' } } });
    const scenario = await open({
      script,
      args: ['--mcp-config', mcpConfig],
      files: {
        '.claude/commands/greet.md': '---\ndescription: Greets someone\n---\nSay hello to $ARGUMENTS politely.\n',
        '.rxagent/agents/finder.md': '---\ndescription: Finds things\ntools: Read, Glob\n---\nYou find things.\n',
      },
    });
    const { term, server } = scenario;
    const first = await term.waitFor(READY);
    const firstSession = /\(session ([0-9a-f-]{36})\)/.exec(first)![1]!;

    term.submit('/help');
    const help = await term.waitFor('Keys:');
    const shown = normalize(help, scenario.box.cwd);
    expect(shown.slice(shown.indexOf('❯ /help'), shown.indexOf('Keys:')).trimEnd()).toBe(HELP_FIXTURE);

    term.submit('/nosuch thing');
    await term.waitFor('Unknown command: /nosuch. Type /help for the commands.');
    // /mcp: the configured servers, their states and tools (a real MCP server over stdio).
    term.submit('/mcp');
    const mcp = await term.waitFor(/MCP servers \(2\):[\s\S]*nosuch/);
    expect(mcp).toMatch(/ {2}fixture {2}connected · fixture 1\.0\.0 · \d+ tools\n {4}echo, slow_progress, /);
    expect(mcp).toMatch(/ {2}broken {3}failed\n {4}\S.*nosuch/);
    // Tab completes the command name (and adds the space for its arguments).
    term.type('/sta');
    term.keys('Tab');
    await term.waitFor(/❯ \/status\s*$/m);
    term.keys('Enter');
    await term.waitFor(`Session:         ${firstSession}`);
    // /agents: the subagents the model can start, the project's own among them.
    term.submit('/agents');
    await term.waitFor(/Subagents the model can start[\s\S]*\n {2}finder — Finds things \(tools: Read, Glob\)/);
    term.submit('/cost');
    await term.waitFor('Total cost:      $0.0000');
    expect(server.requests).toHaveLength(0);

    term.submit('hello');
    await term.waitFor('Answer to: hello');
    term.submit('hello again');
    await term.waitFor('Answer to: hello again');
    expect(server.requests).toHaveLength(2);

    term.submit('/compact keep the names');
    await term.waitFor('(conversation compacted: about');
    expect(server.requests).toHaveLength(3);
    const summaryRequest = server.requests[2]!.body!;
    expect(systemOf(summaryRequest)).toContain('keep the names');
    expect(JSON.stringify(summaryRequest.messages)).toContain('Answer to: hello');

    term.submit('after');
    await term.waitFor('Answer to: after');
    const afterCompact = JSON.stringify(server.requests[3]!.body!.messages);
    expect(afterCompact).toContain('SUMMARY: the user greeted twice.');
    // The first exchange is gone from the view (summarized); the latest one was kept verbatim.
    expect(afterCompact).not.toContain('"hello"');
    expect(afterCompact).toContain('Answer to: hello again');
    // Its prompt too (only the answer was kept once): the summary joins it as the first message.
    const view = server.requests[3]!.body!.messages;
    expect(view[0]!.role).toBe('user');
    expect(JSON.stringify(view[0]!.content)).toContain('"hello again"');
    expect(view[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Answer to: hello again' }] });
    expect(JSON.stringify(summaryRequest.messages)).not.toContain('hello again');

    term.submit('/clear');
    const cleared = await term.waitFor('(new conversation, session ');
    const newSession = /\(new conversation, session ([0-9a-f-]{36})/.exec(cleared)![1]!;
    expect(newSession).not.toBe(firstSession);
    term.submit('fresh');
    await term.waitFor('Answer to: fresh');
    expect(server.requests[4]!.body!.messages).toHaveLength(1);

    term.submit('/greet Ada');
    await term.waitFor('Answer to: Say hello to Ada politely.');
    expect(lastUserText(server.requests[5]!.body!)).toBe('Say hello to Ada politely.');
    expect(server.requests).toHaveLength(6);

    term.submit('/exit');
    expect(await term.waitForExit()).toBe(0);
  });
});
