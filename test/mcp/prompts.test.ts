/**
 * MCP prompts as slash commands (`/mcp__<server>__<prompt> args`) against the real
 * server-everything: listed with their arguments, expanded through `prompts/get`, a missing
 * argument refused before anything is sent; through `agentLoop({ mcpServers })` over real HTTP
 * and through the built command in -p, stream-json and the piped interactive view.
 */
import { lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { LoopEvent } from '../../src/loop/types.js';
import { expandMcpPrompt, McpPromptError, promptArguments } from '../../src/mcp/prompts.js';
import type { MessageParam } from '../../src/protocol/content.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { createMessagesClient } from '../../src/transport/createMessagesClient.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, runAgainst } from '../cli/helpers.js';
import { isResult, startStreamHost, userLine } from '../cli/streamHost.js';
import { hold, type Held } from './hold.js';
import { everythingStdio } from './servers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const user = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
const firstUserText = (request: MessagesRequest | undefined) => JSON.stringify(request?.messages[0]?.content);
const mcpConfig = JSON.stringify({ mcpServers: { everything: everythingStdio() } });
const answer = [{ kind: 'message' as const, blocks: [{ type: 'text' as const, text: 'It is sunny.' }] }];

describe('server-everything prompts', () => {
  let held: Held;
  beforeAll(async () => {
    held = hold({ everything: everythingStdio() });
    await held.first;
  });
  afterAll(async () => held?.close());
  const expand = (text: string) => expandMcpPrompt(() => held.latest()!.prompts)(user(text), new AbortController().signal);

  it('lists the prompts as mcp__everything__<prompt> with their declared arguments', async () => {
    const { prompts } = await held.first;
    const args = prompts.find((p) => p.command === 'mcp__everything__args-prompt');
    expect(args).toMatchObject({ server: 'everything', name: 'args-prompt', description: expect.stringContaining('two arguments') });
    expect(args!.arguments).toEqual([
      { name: 'city', description: 'Name of the city', required: true },
      // The server's SDK drops an optional argument's description from the listing.
      { name: 'state', required: false },
    ]);
    expect(prompts.map((p) => p.command)).toEqual(expect.arrayContaining(['mcp__everything__simple-prompt', 'mcp__everything__resource-prompt']));
  });

  it('expands a command with its arguments through prompts/get; the last argument takes the rest of the line', async () => {
    expect(await expand('/mcp__everything__args-prompt Paris')).toEqual(user("What's weather in Paris?"));
    expect(await expand('/mcp__everything__args-prompt Springfield Illinois, USA')).toEqual(user("What's weather in Springfield, Illinois, USA?"));
    expect(await expand('/mcp__everything__simple-prompt')).toEqual(user('This is a simple prompt without arguments.'));
  });

  it('an embedded resource in a prompt becomes a text block with its uri', async () => {
    const message = await expand('/mcp__everything__resource-prompt Text 1');
    expect(message.content).toEqual([
      { type: 'text', text: 'This prompt includes the Text resource with id: 1. Please analyze the following resource:' },
      { type: 'text', text: expect.stringMatching(/^\[resource demo:\/\/resource\/dynamic\/text\/1\]\n/) },
    ]);
  });

  it('a missing required argument, or arguments to a prompt without any, is a typed error naming the usage', async () => {
    await expect(expand('/mcp__everything__args-prompt')).rejects.toThrow(new McpPromptError('/mcp__everything__args-prompt needs <city> (usage: /mcp__everything__args-prompt <city> [state])'));
    await expect(expand('/mcp__everything__simple-prompt extra')).rejects.toBeInstanceOf(McpPromptError);
  });

  it("the server's refusal is an McpPromptError naming the server", async () => {
    await expect(expand('/mcp__everything__resource-prompt Video 1')).rejects.toThrow(/^\/mcp__everything__resource-prompt: the server everything refused: .*Invalid resourceType/);
  });

  it('anything else is left as it is: other text, an unknown prompt, a message with several blocks', async () => {
    for (const message of [user('hello'), user('/mcp__everything__no-such-prompt x'), user('/etc/hosts'), { role: 'user' as const, content: [{ type: 'text' as const, text: '/mcp__everything__simple-prompt' }, { type: 'text' as const, text: 'more' }] }]) {
      expect(await expandMcpPrompt(() => held.latest()!.prompts)(message, new AbortController().signal)).toBe(message);
    }
  });
});

it('promptArguments: positional, optional ones may be left out', () => {
  const prompt = { command: 'mcp__s__p', server: 's', name: 'p', description: '', arguments: [{ name: 'a', required: true }, { name: 'b', required: false }, { name: 'c', required: false }], get: () => Promise.reject(new Error('unused')) };
  expect(promptArguments(prompt, 'one')).toEqual({ a: 'one' });
  expect(promptArguments(prompt, 'one two three four')).toEqual({ a: 'one', b: 'two', c: 'three four' });
});

it('agentLoop({ mcpServers, prompt: "/mcp__…" }): the model is sent the server prompt, the history keeps it', async () => {
  const server = await startScriptedServer({ script: answer });
  const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-test' });
  try {
    const events: LoopEvent[] = await lastValueFrom(
      agentLoop({ model: 'claude-scripted', client, prompt: '/mcp__everything__args-prompt Lyon', mcpServers: { everything: everythingStdio() } }).pipe(toArray()),
    );
    expect(firstUserText(server.requests[0]!.body)).toContain("What's weather in Lyon?");
    expect(firstUserText(server.requests[0]!.body)).not.toContain('/mcp__');
    expect(events.find((e) => e.type === 'user_message')).toMatchObject({ message: user("What's weather in Lyon?") });
    expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed' });
  } finally {
    await client.close();
    await server.close();
  }
});

describe('through the command', () => {
  it('-p "/mcp__everything__args-prompt Paris": the model gets the expanded prompt; init lists the prompt as a slash command', async () => {
    const run = await runAgainst(answer, ['-p', '/mcp__everything__args-prompt Paris', '--output-format', 'stream-json', '--verbose', '--mcp-config', mcpConfig], makeSandbox());
    expect(run.code).toBe(0);
    expect(firstUserText(run.server.requests[0]!.body)).toContain("What's weather in Paris?");
    const lines = parseLines(run.stdout);
    const init = lines[0]!;
    expect(init.type === 'system' && init.subtype === 'init' ? init.slash_commands : undefined).toEqual(expect.arrayContaining(['mcp__everything__args-prompt', 'mcp__everything__simple-prompt']));
    expect(lines.at(-1)).toMatchObject({ type: 'result', is_error: false, result: 'It is sunny.' });
  });

  it('-p with a missing argument: an error result naming the usage, exit 1, the model never asked', async () => {
    const run = await runAgainst(answer, ['-p', '/mcp__everything__args-prompt', '--output-format', 'json', '--mcp-config', mcpConfig], makeSandbox());
    expect(run.code).toBe(1);
    expect(run.server.requests).toHaveLength(0);
    const result = JSON.parse(run.stdout) as { is_error: boolean; errors?: string[] };
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result)).toContain('needs <city> (usage: /mcp__everything__args-prompt <city> [state])');
  });

  it('stream-json input: a user line naming the prompt is expanded, a later plain line is not', async () => {
    const server = await startScriptedServer({ script: [...answer, { kind: 'message', blocks: [{ type: 'text', text: 'second' }] }] });
    const box = makeSandbox();
    try {
      const host = startStreamHost(['--mcp-config', mcpConfig], { ...box, baseURL: server.baseURL });
      host.send(userLine('/mcp__everything__args-prompt Oslo'));
      await host.waitFor(isResult, 'the first result');
      host.send(userLine('/not-a-prompt'));
      await host.waitFor(isResult, 'the second result');
      host.end();
      expect((await host.done).code).toBe(0);
      expect(firstUserText(server.requests[0]!.body)).toContain("What's weather in Oslo?");
      expect(JSON.stringify(server.requests[1]!.body!.messages.at(-1))).toContain('/not-a-prompt');
    } finally {
      await server.close();
    }
  });

  it('the interactive view (piped): /mcp__everything__args-prompt runs a turn with the server prompt', async () => {
    const run = await runAgainst(answer, ['--mcp-config', mcpConfig], { ...makeSandbox(), stdin: '/mcp__everything__args-prompt Rome\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('It is sunny.');
    expect(run.stdout).not.toContain('Unknown command');
    expect(firstUserText(run.server.requests[0]!.body)).toContain("What's weather in Rome?");
  });
});

describe('the loop seam expandPrompt', () => {
  it('runs before UserPromptSubmit (the hook sees the expanded prompt); a rejection ends turn_setup_failed with a configuration error and no request', async () => {
    const server = await startScriptedServer({ script: answer });
    const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-test' });
    try {
      const seen: MessageParam[] = [];
      const ok = await lastValueFrom(
        agentLoop({
          model: 'claude-scripted',
          client,
          prompt: 'short',
          expandPrompt: async (m) => ({ ...m, content: [{ type: 'text', text: 'expanded' }] }),
          hooks: {
            userPromptSubmit: ({ prompt }) => {
              seen.push(prompt);
              return {};
            },
          },
        }).pipe(toArray()),
      );
      expect(seen).toEqual([user('expanded')]);
      expect(firstUserText(server.requests[0]!.body)).toContain('expanded');
      expect(ok.at(-1)).toMatchObject({ reason: 'completed' });
      const failed = await lastValueFrom(
        agentLoop({ model: 'claude-scripted', client, prompt: 'x', expandPrompt: () => Promise.reject(new McpPromptError('no such argument')) }).pipe(toArray()),
      );
      expect(failed.at(-1)).toMatchObject({ type: 'terminal', reason: 'turn_setup_failed', error: { kind: 'configuration', message: 'no such argument' } });
      expect(server.requests).toHaveLength(1);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
