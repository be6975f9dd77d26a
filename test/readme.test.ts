/**
 * Every README snippet marked `<!-- readme-test -->` runs here, as a user would run it: a plain
 * ES module importing `rxagent`, `rxagent/operators` and `rxagent/testing` through the package's
 * own `exports` (self-reference resolves them to the built `dist/`), in a child `node` process.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

function markedSnippets(markdown: string): { title: string; code: string }[] {
  const out: { title: string; code: string }[] = [];
  const pattern = /<!-- readme-test -->\s*```js\n([\s\S]*?)```/g;
  for (let match = pattern.exec(markdown); match; match = pattern.exec(markdown)) {
    const before = markdown.slice(0, match.index);
    const heading = before.match(/### ([^\n]+)\n(?![\s\S]*### )/);
    out.push({ title: heading?.[1] ?? `snippet ${out.length + 1}`, code: match[1] ?? '' });
  }
  return out;
}

// Inside the package folder, so `import 'rxagent'` self-references this package.
const dir = mkdtempSync(path.join(root, '.readme-snippets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const snippets = markedSnippets(readme);

/** What each snippet must print: proof it did the work, not just that it exited. */
const expectations: Record<string, RegExp[]> = {
  'Run a loop and render its events': [/tool add \{"a":2,"b":3\}/, /result: 5/, /text: The /, /terminal: completed after 2 turns/],
  'Compose it with your own operators': [/^Streaming, one delta at a time\.$/m],
  '`for await` over it': [/Hello from the scripted model\./, /ended: completed/],
  'Plug the operators into an existing Rx app': [/tool_start/, /tool_result/, /block tool_use/, /tool_batch 2 results/],
  'A program written for Claude Code, on rxagent': [/asked: Bash \{"command":"touch hello.txt"\}/, /result: success: Created hello.txt\./],
  'Give the loop MCP servers': [/^mcp__everything__echo: Echo: hi$/m, /terminal: completed/],
};

describe('README snippets', () => {
  it('finds the marked snippets', () => {
    expect(snippets.map((s) => s.title)).toEqual(Object.keys(expectations));
    expect(existsSync(path.join(root, 'dist/src/index.js'))).toBe(true);
  });

  snippets.forEach((snippet, i) => {
    it(`runs: ${snippet.title}`, async () => {
      const file = path.join(dir, `snippet-${i}.mjs`);
      writeFileSync(file, snippet.code);
      const { stdout } = await run(process.execPath, [file], { cwd: root, timeout: 120_000 });
      for (const pattern of expectations[snippet.title] ?? [/(?!)/]) expect(stdout).toMatch(pattern);
    });
  });
});
