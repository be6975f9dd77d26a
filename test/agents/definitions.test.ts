/** Agent definitions: library API, --agents JSON, .rxagent/agents/*.md files. */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AgentDefinitionError,
  defineAgent,
  GENERAL_PURPOSE_AGENT,
  loadAgentDirectory,
  mergeAgentDefinitions,
  parseAgentMarkdown,
  parseAgentsJson,
} from '../../src/agents/definitions.js';
import { parseFrontMatter } from '../../src/agents/frontMatter.js';
import { ConfigurationError } from '../../src/errors.js';

describe('front matter', () => {
  it('reads key: value, quoted values, lists, comments and the body', () => {
    const parsed = parseFrontMatter(
      ['---', 'name: reviewer', "description: 'Reviews: code'", '# a comment', '', 'tools:', '  - Read', '  - Grep', '---', '', 'You review.', 'Carefully.'].join('\n'),
    );
    expect(parsed).toEqual({ fields: { name: 'reviewer', description: 'Reviews: code', tools: ['Read', 'Grep'] }, body: 'You review.\nCarefully.' });
  });
  it('accepts CRLF line ends and a BOM', () => {
    expect(parseFrontMatter('\uFEFF---\r\nname: a\r\n---\r\nbody\r\n')).toEqual({ fields: { name: 'a' }, body: 'body' });
  });
  it.each([
    ['name: a\n---\nbody', /line 1: the file must start with a `---` line/],
    ['---\nname: a\n', /never closed/],
    ['---\nthis is not a pair\n---\n', /line 2: expected `key: value`/],
    ['---\nname: a\nname: b\n---\n', /line 3: `name` is given twice/],
    ['---\n- Read\n---\n', /line 2: a `- item` line must follow/],
  ])('refuses %j', (text, message) => {
    expect(() => parseFrontMatter(text)).toThrow(message);
  });
});

describe('agent definitions', () => {
  it('defineAgent validates and keeps what was given', () => {
    expect(defineAgent({ name: 'x', description: 'd', prompt: 'p', tools: ['Read'], maxTurns: 3, permissionMode: 'plan' })).toEqual({
      name: 'x',
      description: 'd',
      prompt: 'p',
      tools: ['Read'],
      maxTurns: 3,
      permissionMode: 'plan',
      source: 'api',
    });
    expect(() => defineAgent({ name: 'bad name', description: 'd', prompt: 'p' })).toThrow(AgentDefinitionError);
    expect(() => defineAgent({ name: 'x', description: '', prompt: 'p' })).toThrow(/invalid agent definition in api: agent "x": description: description must not be empty/);
  });

  it('parses --agents JSON in the Claude Code shape (tools as array or comma list; unknown keys ignored)', () => {
    const defs = parseAgentsJson(
      JSON.stringify({
        reviewer: { description: 'Reviews code', prompt: 'You review.', tools: ['Read', 'Grep'], model: 'sonnet', color: 'red' },
        tester: { description: 'Runs tests', prompt: 'You test.', tools: 'Bash, Read', maxTurns: 4 },
      }),
    );
    expect(defs).toEqual([
      { name: 'reviewer', description: 'Reviews code', prompt: 'You review.', tools: ['Read', 'Grep'], model: 'sonnet', source: '--agents' },
      { name: 'tester', description: 'Runs tests', prompt: 'You test.', tools: ['Bash', 'Read'], maxTurns: 4, source: '--agents' },
    ]);
  });

  it.each([
    ['{not json', /invalid agent definition in --agents: not valid JSON/],
    ['[]', /expected a JSON object keyed by agent name/],
    ['{"a": {"description": "d"}}', /agent "a": prompt: /],
    ['{"a": {"description": "d", "prompt": "p", "maxTurns": 0}}', /maxTurns: maxTurns must be at least 1/],
    ['{"a": {"description": "d", "prompt": "p", "permissionMode": "yolo"}}', /agent "a": permissionMode: /],
  ])('refuses --agents %s with a clear error', (json, message) => {
    const attempt = () => parseAgentsJson(json);
    expect(attempt).toThrow(ConfigurationError);
    expect(attempt).toThrow(message);
  });

  it('parses an agent file, naming it after the file when the front matter has no name', () => {
    const def = parseAgentMarkdown('---\ndescription: Finds things\ntools: Read, Glob\nmaxTurns: 7\n---\nYou find things.\n', '/w/.rxagent/agents/finder.md');
    expect(def).toEqual({ name: 'finder', description: 'Finds things', prompt: 'You find things.', tools: ['Read', 'Glob'], maxTurns: 7, source: '/w/.rxagent/agents/finder.md' });
  });

  it('errors in agent files name the file', () => {
    expect(() => parseAgentMarkdown('---\ndescription: d\nmaxTurns: many\n---\nbody', '/a/b.md')).toThrow(/invalid agent definition in \/a\/b\.md: agent "b": maxTurns: /);
    expect(() => parseAgentMarkdown('---\ndescription: d\n---\n', '/a/empty.md')).toThrow(/in \/a\/empty\.md: .*prompt/);
    expect(() => parseAgentMarkdown('no front matter', '/a/c.md')).toThrow(/in \/a\/c\.md: line 1/);
  });

  it('loads a directory of .md files in name order; a missing directory is no agents', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rxagent-agents-'));
    try {
      const agentsDir = join(dir, '.rxagent', 'agents');
      await mkdir(agentsDir, { recursive: true });
      await writeFile(join(agentsDir, 'b.md'), '---\ndescription: B\n---\nYou are B.');
      await writeFile(join(agentsDir, 'a.md'), '---\nname: alpha\ndescription: A\n---\nYou are A.');
      await writeFile(join(agentsDir, 'notes.txt'), 'ignored');
      expect((await loadAgentDirectory(agentsDir)).map((d) => d.name)).toEqual(['alpha', 'b']);
      expect(await loadAgentDirectory(join(dir, 'missing'))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('merges: built-in first, later lists replace by name', () => {
    const mine = defineAgent({ name: 'general-purpose', description: 'mine', prompt: 'p' });
    const other = defineAgent({ name: 'other', description: 'o', prompt: 'p' });
    const merged = mergeAgentDefinitions([other], [mine]);
    expect([...merged.keys()]).toEqual(['general-purpose', 'other']);
    expect(merged.get('general-purpose')).toBe(mine);
    expect(mergeAgentDefinitions().get('general-purpose')).toBe(GENERAL_PURPOSE_AGENT);
  });
});
