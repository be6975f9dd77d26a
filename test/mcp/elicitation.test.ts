/**
 * MCP elicitation against the real server-everything (its `trigger-elicitation-request` tool
 * asks the client for a form, over stdio): with a handler the capability is advertised, the tool
 * is offered, the handler sees the server's message and fields and its answer reaches the
 * server; the built command in -p declines at once with a warning; the terminal form (askInForm)
 * over a scripted view: accept with a retried answer, decline, withdrawn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpElicitation } from '../../src/mcp/elicitation.js';
import { fieldsOf, valueOf } from '../../src/mcp/elicitation.js';
import { askInForm, type FormView } from '../../src/mcp/elicitationForm.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, runAgainst } from '../cli/helpers.js';
import { callTool, hold, resultOf } from './hold.js';
import { linkFixture } from './inProcess.js';
import { everythingStdio } from './servers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const TOOL = 'mcp__everything__trigger-elicitation-request';

describe('server-everything asks for a form', () => {
  it('with a handler: the tool is offered, the handler gets the message and fields, its answer reaches the server', async () => {
    const seen: McpElicitation[] = [];
    const held = hold(
      { everything: everythingStdio() },
      {
        onElicitation: async (request) => {
          seen.push(request);
          return { action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } };
        },
      },
    );
    try {
      const tools = await held.first;
      const events = await callTool(tools.tools, TOOL, {});
      const text = JSON.stringify(resultOf(events).content);
      expect(text).toContain('User provided the requested information');
      expect(text).toContain('Name: Ada Lovelace');
      expect(text).toContain('Agreed to terms: true');
      expect(text).toContain('Favorite Integer: 7');
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ server: 'everything', message: 'Please provide inputs for the following fields:' });
      const byName = new Map(seen[0]!.fields.map((f) => [f.name, f]));
      expect(byName.get('name')).toMatchObject({ type: 'string', required: true, description: 'Your full, legal name' });
      expect(byName.get('check')).toMatchObject({ type: 'boolean', required: false });
      expect(byName.get('integer')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 42 });
      expect(byName.get('titledSingleSelectEnum')).toMatchObject({ options: ['hero-1', 'hero-2', 'hero-3'], optionTitles: ['Superman', 'Green Lantern', 'Wonder Woman'], default: 'hero-1' });
      expect(byName.get('legacyTitledEnum')).toMatchObject({ options: ['pet-1', 'pet-2', 'pet-3', 'pet-4', 'pet-5'], optionTitles: ['Cats', 'Dogs', 'Birds', 'Fish', 'Reptiles'] });
      expect(byName.get('titledMultipleSelectEnum')).toMatchObject({ type: 'array', options: ['fish-1', 'fish-2', 'fish-3'], optionTitles: ['Tuna', 'Salmon', 'Trout'] });
      expect(byName.get('untitledMultipleSelectEnum')).toMatchObject({ type: 'array', options: ['Guitar', 'Piano', 'Violin', 'Drums', 'Bass'], default: ['Guitar'] });
    } finally {
      await held.close();
    }
  });

  it('a handler that declines: the server is told, the call still has its one result', async () => {
    const held = hold({ everything: everythingStdio() }, { onElicitation: async () => ({ action: 'decline' }) });
    try {
      const events = await callTool((await held.first).tools, TOOL, {});
      expect(JSON.stringify(resultOf(events).content)).toContain('User declined to provide the requested information');
    } finally {
      await held.close();
    }
  });

  it('-p: the request is declined at once with a warning naming the server; the model gets the result', async () => {
    const run = await runAgainst(
      [
        { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_ask', name: TOOL, input: {} }] },
        { kind: 'message', blocks: [{ type: 'text', text: 'ok' }] },
      ],
      ['-p', 'ask me', '--output-format', 'stream-json', '--verbose', '--mcp-config', JSON.stringify({ mcpServers: { everything: everythingStdio() } }), '--allowedTools', 'mcp__everything'],
      makeSandbox(),
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('MCP server "everything" asked for input ("Please provide inputs for the following fields:"); declined: nobody is there to answer in print mode');
    const results = parseLines(run.stdout).flatMap((l) => (l.type === 'user' && Array.isArray(l.message.content) ? l.message.content.filter((b) => b.type === 'tool_result') : []));
    expect(JSON.stringify(results)).toContain('User declined to provide the requested information');
  });
});

/** A view that answers from a script, and records what it printed and was asked. */
function scriptedView(answers: (string | undefined)[]): FormView & { asked: string[]; printed: string } {
  const view = {
    asked: [] as string[],
    printed: '',
    print: (text: string) => void (view.printed += text),
    choose: async <T,>(title: string, options: ReadonlyArray<{ label: string; value: T }>) => {
      view.asked.push(title);
      const answer = answers.shift();
      return options.find((o) => String(o.value) === answer)?.value;
    },
    readLine: async (label: string) => {
      view.asked.push(label);
      return answers.shift();
    },
  };
  return view;
}

describe('askInForm (the interactive view)', () => {
  const fields = fieldsOf({
    properties: {
      name: { type: 'string', title: 'Name', minLength: 2 },
      age: { type: 'integer', title: 'Age', description: 'how old', minimum: 0, default: 30 },
      agree: { type: 'boolean', title: 'Agree' },
      color: { type: 'string', title: 'Color', enum: ['red', 'blue'] },
      tags: { type: 'array', title: 'Tags', items: { enum: ['a', 'b', 'c'] } },
    },
    required: ['name', 'agree'],
  });
  const request = (signal = new AbortController().signal): McpElicitation => ({ server: 's', message: 'Who are you?', fields, signal });

  it('accept: each field asked in turn, a bad answer asked again with the reason, Enter keeps a default, optional fields may stay empty', async () => {
    const view = scriptedView(['accept', 'A', 'Ada', '', 'yes', '', 'a, c']);
    const answer = await askInForm(view)(request());
    expect(answer).toEqual({ action: 'accept', content: { name: 'Ada', age: 30, agree: true, tags: ['a', 'c'] } });
    expect(view.printed).toContain('MCP server "s" asks: Who are you?');
    expect(view.printed).toContain('at least 2 characters');
    expect(view.asked).toEqual(['Answer it?', 'Name: ', 'Name: ', 'Age [optional] [30]: ', 'Agree', 'Color [optional]', 'Tags [optional]: ']);
    // What explains a field is printed whole above its one-line question.
    expect(view.printed).toContain('  Age: how old\n');
    expect(view.printed).toContain('  some of: a, b, c (comma-separated)\n');
  });

  it('titled enums are offered by title and answered with their values (oneOf/anyOf titles, legacy enumNames)', async () => {
    const titled = fieldsOf({
      properties: {
        hero: { type: 'string', title: 'Hero', oneOf: [{ const: 'h1', title: 'Superman' }, { const: 'h2', title: 'Wonder Woman' }] },
        pet: { type: 'string', title: 'Pet', enum: ['p1', 'p2'], enumNames: ['Cats', 'Dogs'] },
        fish: { type: 'array', title: 'Fish', items: { anyOf: [{ const: 'f1', title: 'Tuna' }, { const: 'f2' }] } },
      },
      required: ['hero', 'pet'],
    });
    const labels: string[][] = [];
    const view = scriptedView(['accept', 'h2', 'p2', 'f1,f2']);
    const choose = view.choose;
    view.choose = async (title, options) => (labels.push(options.map((o) => o.label)), choose(title, options));
    const answer = await askInForm(view)({ server: 's', message: 'Pick', fields: titled, signal: new AbortController().signal });
    expect(answer).toEqual({ action: 'accept', content: { hero: 'h2', pet: 'p2', fish: ['f1', 'f2'] } });
    expect(labels.slice(1)).toEqual([
      ['Superman', 'Wonder Woman'],
      ['Cats', 'Dogs'],
    ]);
    expect(view.asked.at(-1)).toBe('Fish [optional]: ');
    expect(view.printed).toContain('  some of: f1 = Tuna, f2 (comma-separated)\n');
    // enumNames that do not name every value are ignored (the values are shown).
    expect(fieldsOf({ properties: { x: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } } })[0]!.optionTitles).toEqual(['a', 'b']);
  });

  it('decline and cancel as chosen; no answer possible (piped) declines; a withdrawn request is cancelled', async () => {
    expect(await askInForm(scriptedView(['decline']))(request())).toEqual({ action: 'decline' });
    expect(await askInForm(scriptedView(['cancel']))(request())).toEqual({ action: 'cancel' });
    expect(await askInForm(scriptedView([undefined]))(request())).toEqual({ action: 'decline' });
    const controller = new AbortController();
    controller.abort();
    expect(await askInForm(scriptedView(['accept']))(request(controller.signal))).toEqual({ action: 'cancel' });
  });

  it('valueOf: types, ranges and formats as the schema says', () => {
    const [email] = fieldsOf({ properties: { e: { type: 'string', format: 'email' } } });
    expect(valueOf(email!, 'x')).toEqual({ ok: false, reason: 'an email address is needed' });
    expect(valueOf(email!, 'a@b.io')).toEqual({ ok: true, value: 'a@b.io' });
    const age = fields.find((f) => f.name === 'age')!;
    expect(valueOf(age, '-1')).toEqual({ ok: false, reason: 'at least 0' });
    expect(valueOf(age, '2.5')).toEqual({ ok: false, reason: 'a whole number is needed' });
    expect(valueOf(fields.find((f) => f.name === 'color')!, 'green')).toEqual({ ok: false, reason: 'choose one of red, blue' });
  });
});

describe('requests the client does not support are refused cleanly (the fixture server asks anyway)', () => {
  it('sampling always, elicitation without a handler: the server gets the protocol refusal, the call its one result', async () => {
    const fixture = linkFixture();
    const held = hold({ fixture: fixture.config });
    try {
      const tools = (await held.first).tools;
      for (const method of ['sampling/createMessage', 'elicitation/create']) {
        const events = await callTool(tools, 'mcp__fixture__ask_client', { method });
        expect(events.filter((e) => e.type === 'tool_result')).toHaveLength(1);
        expect(resultOf(events).content).toBe('client refused: MCP error -32601: Method not found');
      }
    } finally {
      await held.close();
    }
  });

  it('elicitation with a handler: the same request reaches it', async () => {
    const held = hold({ fixture: linkFixture().config }, { onElicitation: async (r) => ({ action: 'accept', content: { name: `${r.message} Ada` } }) });
    try {
      const events = await callTool((await held.first).tools, 'mcp__fixture__ask_client', { method: 'elicitation/create' });
      expect(resultOf(events).content).toBe('client replied {"action":"accept","content":{"name":"Your name? Ada"}}');
    } finally {
      await held.close();
    }
  });
});
