/**
 * Every README snippet marked `<!-- readme-test -->` runs here, as a user would run it: against
 * the PACKED package (`npm pack`, unpacked into a scratch project's node_modules), so a file
 * missing from the package or an export missing from `rxagent`, `rxagent/operators` or
 * `rxagent/testing` fails. A `js` snippet runs as an ES module; a `ts` snippet is first compiled
 * by tsc in strict mode against the package's own type declarations, then run.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

interface Snippet {
  readonly title: string;
  readonly lang: 'js' | 'ts';
  readonly code: string;
}

function markedSnippets(markdown: string): Snippet[] {
  const out: Snippet[] = [];
  const pattern = /<!-- readme-test -->\s*```(js|ts)\n([\s\S]*?)```/g;
  for (let match = pattern.exec(markdown); match; match = pattern.exec(markdown)) {
    const before = markdown.slice(0, match.index);
    const heading = before.match(/### ([^\n]+)\n(?![\s\S]*### )/);
    out.push({ title: heading?.[1] ?? `snippet ${out.length + 1}`, lang: match[1] as 'js' | 'ts', code: match[2] ?? '' });
  }
  return out;
}

const snippets = markedSnippets(readme);

/** What each snippet must print: proof it did the work, not just that it exited. */
const expectations: Record<string, RegExp[]> = {
  'Run a loop and render its events': [/tool add \{"a":2,"b":3\}/, /result: 5/, /text: The /, /terminal: completed after 2 turns/],
  'Compose it with your own operators': [/^Streaming, one delta at a time\.$/m],
  '`for await` over it': [/Hello from the scripted model\./, /ended: completed/],
  'Plug the operators into an existing Rx app': [/tool_start/, /tool_result/, /block tool_use/, /tool_batch 2 results/],
  'Test your own agent with marble diagrams': [/^the loop kept its frames$/m],
  'User input as a hot stream': [/^the typed line rode with the tool result$/m],
  'A tool starts in the frame its block closes': [/^the tool overlapped the stream$/m],
  'A program written for Claude Code, on rxagent': [/asked: Bash \{"command":"touch hello.txt"\}/, /result: success: Created hello.txt\./],
  'Give the loop MCP servers': [/^mcp__everything__echo: Echo: hi$/m, /terminal: completed/],
  'React, driven by one stream of commands': [/^rendered: Paris, on the \*\*Seine\*\*\.$/m],
  'Point any client at it': [/^answer: Hello from the script\.$/m, /^valid: true$/m],
};

/** What the scratch project has installed: the package's dependencies, Node's types, and what a snippet uses beside rxagent. */
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> };
const LINKED = [
  // The package's dependencies and its peers (rxjs, zod: the app's own copies).
  ...Object.keys(manifest.dependencies),
  ...Object.keys(manifest.peerDependencies),
  '@types/node',
  '@anthropic-ai/claude-agent-sdk',
  '@anthropic-ai/sdk',
  '@modelcontextprotocol/server-everything',
  // The React snippet: react-dom renders into a happy-dom document.
  'react',
  'react-dom',
  '@types/react',
  '@types/react-dom',
  'happy-dom',
];

const scratch = mkdtempSync(path.join(tmpdir(), 'rxagent-readme-'));
const project = path.join(scratch, 'project');
/** tsc's diagnostics per TS snippet file (empty: it compiled). */
const diagnostics = new Map<string, string>();
const fileOf = (i: number, lang: 'js' | 'ts') => `snippet-${i}.${lang === 'ts' ? 'mts' : 'mjs'}`;

beforeAll(async () => {
  expect(existsSync(path.join(root, 'dist/src/index.js')), 'build first: npm run build').toBe(true);
  // Pack what `npm publish` would ship (the build already ran: no scripts), then install it by hand.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', scratch], { cwd: root, timeout: 120_000 });
  const tarball = path.join(scratch, stdout.trim().split('\n').at(-1)!);
  mkdirSync(path.join(project, 'node_modules', 'rxagent'), { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', path.join(project, 'node_modules', 'rxagent'), '--strip-components=1']);
  for (const name of LINKED) {
    const link = path.join(project, 'node_modules', name);
    mkdirSync(path.dirname(link), { recursive: true }); // a scope folder (@types, ...)
    symlinkSync(path.join(root, 'node_modules', name), link, 'dir');
  }
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'readme-snippets', private: true, type: 'module' }));
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true, types: ['node'], outDir: 'out', skipLibCheck: false },
      include: ['*.mts'],
    }),
  );
  snippets.forEach((snippet, i) => writeFileSync(path.join(project, fileOf(i, snippet.lang)), snippet.code));
  if (snippets.some((s) => s.lang === 'ts')) {
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    // A hang bound, not a speed bound: a strict compile against every shipped .d.ts took over
    // 120 s on a loaded 2-core machine once (killed, it emitted nothing and reported nothing).
    const result = await run(process.execPath, [tsc, '-p', project], { cwd: project, timeout: 600_000 }).catch(
      (error: { stdout?: string; signal?: string | null; message?: string }) => error,
    );
    const output = 'stdout' in result && typeof result.stdout === 'string' ? result.stdout : '';
    snippets.forEach((snippet, i) => {
      if (snippet.lang !== 'ts') return;
      const file = fileOf(i, 'ts');
      diagnostics.set(file, output.split('\n').filter((line) => line.startsWith(file)).join('\n'));
    });
    // A diagnostic of no snippet (the package's own .d.ts under strict settings, say) fails them all.
    const elsewhere = output.split('\n').filter((line) => /error TS/.test(line) && !line.startsWith('snippet-'));
    if (elsewhere.length > 0) for (const file of diagnostics.keys()) diagnostics.set(file, elsewhere.join('\n'));
    // tsc failing without a single diagnostic (killed, crashed) fails them all too, saying so.
    const failed = 'message' in result && typeof result.message === 'string';
    if (failed && !/error TS/.test(output)) for (const file of diagnostics.keys()) diagnostics.set(file, `tsc failed without diagnostics: ${result.message ?? ''}`);
  }
}, 900_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('README snippets', () => {
  it('finds the marked snippets', () => {
    expect(snippets.map((s) => s.title)).toEqual(Object.keys(expectations));
  });

  it('the package ships what the snippets import', () => {
    const manifest = JSON.parse(readFileSync(path.join(project, 'node_modules', 'rxagent', 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports)).toEqual(expect.arrayContaining(['.', './operators', './testing']));
    expect(existsSync(path.join(project, 'node_modules', 'rxagent', 'dist', 'src', 'testing', 'index.d.ts'))).toBe(true);
    // Tests and marble specs stay out of the package.
    expect(existsSync(path.join(project, 'node_modules', 'rxagent', 'dist', 'test'))).toBe(false);
  });

  snippets.forEach((snippet, i) => {
    it(`runs: ${snippet.title}`, async () => {
      let file = path.join(project, fileOf(i, snippet.lang));
      if (snippet.lang === 'ts') {
        expect(diagnostics.get(fileOf(i, 'ts')), 'tsc --strict').toBe('');
        file = path.join(project, 'out', fileOf(i, 'ts').replace(/\.mts$/, '.mjs'));
      }
      const { stdout } = await run(process.execPath, [file], { cwd: project, timeout: 120_000 });
      for (const pattern of expectations[snippet.title] ?? [/(?!)/]) expect(stdout).toMatch(pattern);
    });
  });
});
