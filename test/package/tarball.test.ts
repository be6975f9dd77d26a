/**
 * The package as a user gets it: `npm pack` of the built package ships the built code, its types,
 * README and LICENSE, and nothing else (no bench, no tests, no source maps pointing at sources it
 * does not ship). The tarball is then laid out in a temporary project the way npm installs it,
 * next to rxjs 7.8.1 and zod 4.1 (older than the versions we develop with, inside the peer ranges),
 * and a consumer file is type-checked with `tsc --strict` and run against the scripted server.
 *
 * The layout is made by hand (tarball unpacked into node_modules/rxagent, its dependencies linked
 * from this checkout's node_modules) rather than by `npm install`, which would ask the registry:
 * tests talk to loopback only. The older rxjs and zod come from aliased dev dependencies.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';

const run = promisify(execFile);

/** Runs a file to its end with no stdin (a `-p` run reads a piped stdin as more prompt). */
function runClosed(file: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, { types: string; default: string }>;
  dependencies: Record<string, string>;
  bin: { rxagent: string };
};
const work = mkdtempSync(path.join(tmpdir(), 'rxagent-pack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface PackListing {
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

async function pack(): Promise<PackListing> {
  if (!existsSync(path.join(root, 'dist/src/index.js'))) throw new Error('dist/ is missing: npm test builds before it runs the tests (npm run build)');
  // --ignore-scripts: `prepare` would build again; npm test has just built.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root, timeout: 120_000 });
  return (JSON.parse(stdout) as PackListing[])[0]!;
}

const listing = pack();

describe('the packed package', () => {
  it('ships the built code with types, README and LICENSE, and no bench, tests or maps', async () => {
    const files = (await listing).files.map((f) => f.path);
    // The bin (main.cjs) and the same launcher as an ES module (main.js), what they run: the
    // command's bundle, the code cache the build made for it, and the interactive view's Markdown
    // renderer, bundled apart (scripts/bundleCli.mjs says why).
    expect(pkg.bin.rxagent).toBe('./dist/src/cli/main.cjs');
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/src/cli/main.cjs',
        'dist/src/cli/main.js',
        'dist/src/cli/rxagent.cjs',
        'dist/src/cli/rxagent.cjs.cache',
        'dist/src/cli/rxagent-marked-terminal.cjs',
      ]),
    );
    for (const target of Object.values(pkg.exports)) {
      expect(files).toContain(target.types.replace(/^\.\//, ''));
      expect(files).toContain(target.default.replace(/^\.\//, ''));
    }
    expect(files.filter((f) => !/^(LICENSE|README\.md|package\.json|dist\/(src|operators)\/.+)$/.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith('dist/bench/') || /\.map$/.test(f) || /\.test(-d)?\.[cm]?[jt]s$/.test(f))).toEqual([]);
    // No shipped file names a source map.
    const tarball = path.join(work, (await listing).filename);
    const { stdout } = await run('tar', ['-xzOf', tarball, '--wildcards', 'package/dist/*.js'], { maxBuffer: 64 * 1024 * 1024 });
    expect(stdout).not.toContain('sourceMappingURL');
  }, 180_000);

  it('installs next to rxjs 7.8.1 and zod 4.1: one copy of each, a strict consumer compiles and runs', async () => {
    const consumer = path.join(work, 'consumer');
    const modules = path.join(consumer, 'node_modules');
    mkdirSync(path.join(modules, 'rxagent'), { recursive: true });
    await run('tar', ['-xzf', path.join(work, (await listing).filename), '-C', path.join(modules, 'rxagent'), '--strip-components=1']);
    // What npm would install: rxagent's own dependencies, and the app's rxjs/zod as its peers.
    mkdirSync(path.join(modules, '@types'), { recursive: true });
    const links: Record<string, string> = { rxjs: 'rxjs-7.8.1', zod: 'zod-4.1', '@types/node': '@types/node' };
    for (const dep of Object.keys(pkg.dependencies)) links[dep] = dep;
    for (const [name, from] of Object.entries(links)) {
      mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
      symlinkSync(path.join(root, 'node_modules', from), path.join(modules, name), 'dir');
    }
    expect(existsSync(path.join(modules, 'rxagent', 'node_modules'))).toBe(false);
    expect(JSON.parse(readFileSync(path.join(modules, 'rxjs', 'package.json'), 'utf8')).version).toBe('7.8.1');
    expect(JSON.parse(readFileSync(path.join(modules, 'zod', 'package.json'), 'utf8')).version).toMatch(/^4\.1\./);

    writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true, types: ['node'], skipLibCheck: false, outDir: 'out' },
        files: ['consumer.ts'],
      }),
    );
    copyFileSync(path.join(root, 'test/package/consumer/consumer.ts'), path.join(consumer, 'consumer.ts'));
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    const compiled = await run(process.execPath, [tsc, '-p', consumer], { cwd: consumer, timeout: 180_000 }).catch((error: { stdout?: string }) => {
      throw new Error(`the consumer does not type-check against the tarball:\n${error.stdout ?? String(error)}`);
    });
    expect(compiled.stdout).toBe('');

    const { stdout } = await run(process.execPath, [path.join(consumer, 'out/consumer.js')], { cwd: consumer, timeout: 120_000 });
    expect(stdout).toContain('text: The sum is 5.');
    expect(stdout).toContain('tools: add results: 1');
    expect(stdout).toContain('terminal: completed');
    expect(stdout).toMatch(/sub-paths: [1-9]\d* true function true true/);

    // The bin as npm links it (node_modules/.bin/rxagent → package.json's bin, run through its #!
    // line), and main.js as `node main.js` (the Claude Agent SDK's way), from the installed copy:
    // each finds its bundle there, and a -p run answers.
    const installed = path.join(modules, 'rxagent', pkg.bin.rxagent);
    expect(statSync(installed).mode & 0o111).toBe(0o111); // executable as packed; npm also sets it
    mkdirSync(path.join(modules, '.bin'));
    symlinkSync(path.relative(path.join(modules, '.bin'), installed), path.join(modules, '.bin', 'rxagent'));
    const home = path.join(work, 'home');
    mkdirSync(home);
    const env = { PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env['PATH'] ?? ''}`, HOME: home };
    const ways: readonly (readonly [string, readonly string[]])[] = [
      [path.join(modules, '.bin', 'rxagent'), []],
      [process.execPath, [path.join(modules, 'rxagent', 'dist/src/cli/main.js')]],
    ];
    for (const [file, args] of ways) {
      const version = await runClosed(file, [...args, '--version'], { cwd: consumer, env });
      expect(version).toEqual({ status: 0, stdout: `${pkg.version} (rxagent)\n`, stderr: '' });
      const server = await startScriptedServer({ script: [{ kind: 'message', blocks: [{ type: 'text', text: 'hello' }] }] });
      try {
        const turn = await runClosed(file, [...args, '-p', 'hi'], { cwd: consumer, env: { ...env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL } });
        expect(turn).toEqual({ status: 0, stdout: 'hello\n', stderr: '' });
      } finally {
        await server.close();
      }
    }
  }, 300_000);
});
