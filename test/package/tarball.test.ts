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
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
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
    // The bin and what it runs: the command's bundle, the code cache the build made for it, and
    // the interactive view's Markdown renderer, bundled apart (scripts/bundleCli.mjs says why).
    expect(files).toEqual(
      expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/src/cli/main.js', 'dist/src/cli/rxagent.cjs', 'dist/src/cli/rxagent.cjs.cache', 'dist/src/cli/rxagent-marked-terminal.cjs']),
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

    // The bin as package.json names it, run from the installed copy: it finds its bundle there.
    const bin = await run(process.execPath, [path.join(modules, 'rxagent', pkg.bin.rxagent), '--version'], { cwd: consumer, timeout: 60_000 });
    expect(bin.stdout).toBe(`${pkg.version} (rxagent)\n`);
  }, 300_000);
});
