/**
 * What the bin loads is in the package. From each launcher (package.json's bin, main.cjs, and
 * main.js, which the Claude Agent SDK runs), every file it reads or imports, and what those
 * import in turn, lies in the packed tree (`npm pack --dry-run`'s list, which package.json's
 * `files` decides), and every package they import is a node built-in or one of package.json's
 * dependencies or peers (npm installs those with it). The tarball test runs the installed bin;
 * this one names the file or package a published bin would miss.
 *
 * The edges, read from the built files:
 * - import/require/import() with a literal: esbuild's metafile of the file, bundled with every
 *   package external (a parse, not a text search: a `require("…")` inside a string is no edge);
 * - `new URL('./…', <the file's own URL>)`: files read by path (the bundle, its code cache, the
 *   worker scripts, the web page). A list of such URLs is a list of candidates, where one found is
 *   enough (the source tree's and the built tree's places);
 * - the bundle's `__rxagentImport("…")` (its import() routed through the launcher) and
 *   `createRequire(<own URL>)("…")` (loaded on first use).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, ROOT } from './helpers.js';

beforeAll(assertBuilt);

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: { rxagent: string };
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
/** pg's native binding: pg requires it in a try only when asked for (`pg.native`); nobody installs it for rxagent. */
const OPTIONAL = new Set(['pg-native']);
const SELF_URL = String.raw`(?:import\.meta\.url|__rxagentModuleUrl|__rxagentLauncherUrl)`;
const STRING = String.raw`(?:"([^"]*)"|'([^']*)')`;
const NEW_URL = new RegExp(String.raw`new URL\(${STRING},\s*${SELF_URL}\)`, 'g');
const URL_LIST = new RegExp(String.raw`\[\s*new URL\([^\]]*\]`, 'g');
const ROUTED_IMPORT = new RegExp(String.raw`__rxagentImport\(${STRING}\)`, 'g');
const CREATED_REQUIRE = new RegExp(String.raw`createRequire\)?\(${SELF_URL}\)\(${STRING}\)`, 'g');

async function packedFiles(): Promise<Set<string>> {
  // --ignore-scripts: `prepare` would build again.
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: ROOT, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
  return new Set((JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path));
}

const isRelative = (specifier: string) => specifier.startsWith('./') || specifier.startsWith('../');
const packageName = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier);
const strings = (match: RegExpMatchArray) => (match[1] ?? match[2])!;

interface Walk {
  /** Package-relative paths reached, in the order found. */
  readonly reached: string[];
  /** Package specifiers imported, with the file importing each. */
  readonly packages: Map<string, string>;
  /** What the packed tree lacks: `file → reference`. */
  readonly missing: string[];
}

/** Everything `entry` (package-relative) loads, transitively, checked against the packed list. */
async function walk(entry: string, packed: ReadonlySet<string>): Promise<Walk> {
  const reached: string[] = [];
  const packages = new Map<string, string>();
  const missing: string[] = [];
  const queue = [entry];
  const seen = new Set<string>();
  const reach = (from: string, path: string, why: string) => {
    const miss = `${from} → ${why} (${path})`;
    if (!packed.has(path) && !missing.includes(miss)) missing.push(miss);
    if (!seen.has(path)) {
      seen.add(path);
      reached.push(path);
      if (/\.[cm]?js$/.test(path)) queue.push(path);
    }
  };
  const relativeTo = (from: string, specifier: string) => posix.normalize(posix.join(posix.dirname(from), specifier));
  reach('package.json bin', entry, entry);
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const file = next;
    const result = await build({
      entryPoints: [join(ROOT, file)],
      absWorkingDir: ROOT,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: file.endsWith('.cjs') ? 'cjs' : 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    for (const [input, { imports }] of Object.entries(result.metafile.inputs)) {
      const from = posix.normalize(input);
      if (from !== file) reach(file, from, `imports ${from}`);
      for (const record of imports) if (record.external && !isBuiltin(record.path)) packages.set(record.path, from);
      const text = readFileSync(join(ROOT, from), 'utf8');
      const inLists = new Set<string>();
      for (const list of text.matchAll(URL_LIST)) {
        const candidates = [...list[0].matchAll(NEW_URL)].map((match) => relativeTo(from, strings(match)));
        if (candidates.length === 0) continue; // URLs of values, not of files beside this one
        for (const candidate of candidates) inLists.add(candidate);
        const found = candidates.find((candidate) => packed.has(candidate));
        if (found) reach(from, found, `one of ${candidates.join(', ')}`);
        else missing.push(`${from} → none of ${candidates.join(', ')}`);
      }
      for (const match of text.matchAll(NEW_URL)) {
        const target = relativeTo(from, strings(match));
        if (strings(match) !== '.' && !inLists.has(target)) reach(from, target, `new URL('${strings(match)}')`);
      }
      for (const match of [...text.matchAll(ROUTED_IMPORT), ...text.matchAll(CREATED_REQUIRE)]) {
        const specifier = strings(match);
        if (isRelative(specifier)) reach(from, relativeTo(from, specifier), `loads ${specifier}`);
        else if (!isBuiltin(specifier)) packages.set(specifier, from);
      }
    }
  }
  return { reached, packages, missing };
}

const packed = packedFiles();

describe.each([
  { name: "package.json's bin", entry: () => posix.normalize(pkg.bin.rxagent) },
  { name: 'main.js', entry: () => 'dist/src/cli/main.js' },
])('what $name loads', ({ entry }) => {
  it('is in the packed tree, and every package it imports is a built-in, a dependency or a peer', async () => {
    const { reached, packages, missing } = await walk(entry(), await packed);
    expect(missing).toEqual([]);
    // The walk found what the bin is known to load (else it checks nothing).
    expect(reached).toEqual(
      expect.arrayContaining([
        'dist/src/cli/rxagent.cjs',
        'dist/src/cli/rxagent.cjs.cache',
        'dist/src/cli/rxagent-marked-terminal.cjs',
        'dist/src/permissions/bashCheckWorker.js',
        'dist/src/serve/page/app.js',
      ]),
    );
    expect([...packages.keys()]).toEqual(expect.arrayContaining(['mvdan-sh', '@opentelemetry/sdk-trace-base']));
    const declared = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)]);
    const undeclared = [...packages].filter(([specifier]) => !declared.has(packageName(specifier)) && !OPTIONAL.has(packageName(specifier)));
    expect(undeclared.map(([specifier, from]) => `${from} imports ${specifier}`)).toEqual([]);
  }, 180_000);
});

it('names what a packed tree without one of those files would miss', async () => {
  const without = new Set([...(await packed)].filter((file) => file !== 'dist/src/cli/rxagent.cjs.cache' && file !== 'dist/src/permissions/bashCheckWorker.js'));
  const { missing } = await walk(posix.normalize(pkg.bin.rxagent), without);
  expect(missing).toEqual([
    "dist/src/cli/main.cjs → new URL('./rxagent.cjs.cache') (dist/src/cli/rxagent.cjs.cache)",
    expect.stringMatching(/^dist\/src\/cli\/rxagent\.cjs → none of .*dist\/src\/permissions\/bashCheckWorker\.js/),
  ]);
}, 180_000);
