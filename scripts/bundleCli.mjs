/**
 * Bundles the `rxagent` command (`npm run build`, after tsc): src/cli/main.ts and everything it
 * loads → dist/src/cli/rxagent.cjs, one CommonJS file run by the launcher (scripts/cliLauncher.js)
 * through a V8 code cache made here by one training run. The launcher is written twice, from the
 * one source: dist/src/cli/main.cjs, the bin package.json names, and dist/src/cli/main.js, the same
 * launcher as an ES module for whoever runs `node dist/src/cli/main.js` (the Claude Agent SDK does).
 *
 * Every choice here makes the command start sooner (issue 20 §3):
 * - One CommonJS file, not ES modules: Node 20 can cache compiled code only for a vm.Script (its
 *   module compile cache is 22+). The modes a `-p` run does not use (interactive view, serve, MCP
 *   login, fleet) stay in the file but are evaluated only when their mode runs (esbuild turns each
 *   `await import()` into a lazy init); their functions are compiled only if called.
 * - rxjs from its ES-module build: the `node` condition of its package exports picks the
 *   CommonJS build, which esbuild cannot tree-shake (360 KB, all of it, at every start).
 * - zod without its translated error messages: zod's index re-exports every locale
 *   (`z.locales`, `z.core.locales`; about 400 KB) and esbuild cannot drop a re-exported
 *   namespace. Nothing in rxagent reads them; the English messages zod uses by default come from
 *   their own module and stay. A use of `z.locales` in the bin would find an empty namespace.
 * - marked-terminal (the interactive view's Markdown, with highlight.js) in a file of its own.
 * - The bin as CommonJS (main.cjs, esbuild's transform of the launcher): node runs a CommonJS
 *   entry without its ES-module loader, which an ES-module entry sets up before its first line
 *   (resolve, translate, link, evaluate jobs, the loader's hooks: node's own code, compiled and run
 *   at every start).
 * - The code cache (dist/src/cli/rxagent.cjs.cache): the command runs once against a loopback
 *   server with a canned one-text reply and writes, at exit, the code of every function that run
 *   compiled. Made by this node with the bin's V8 flags; any other node rejects it and compiles
 *   from source.
 * The library itself (`dist/src`, from tsc) imports zod and rxjs as they are.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { builtinModules } from 'node:module';
import { constants as http2Constants } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';

const root = new URL('..', import.meta.url);
const out = (rel) => fileURLToPath(new URL(rel, root));
const BUNDLE = out('dist/src/cli/rxagent.cjs');
const BIN = out('dist/src/cli/main.js');
const BIN_CJS = out('dist/src/cli/main.cjs');

/** zod's `locales/index.js`, as the two modules re-exporting it see it in the bin: empty. */
const zodWithoutLocales = {
  name: 'zod-without-locales',
  setup(builder) {
    builder.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'zod-without-locales' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'zod-without-locales' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/**
 * undici's HTTP/2 client requires node:http2 at load (~5–8 ms at every start) only to read ten
 * protocol constants; the command never opens an HTTP/2 connection unless undici negotiates one.
 * In the bin, client-h2.js gets those constants as values (taken from this node's http2 at build)
 * and loads node:http2 at its first `connect`. The build fails if undici's text changed.
 */
const undiciHttp2OnDemand = {
  name: 'undici-http2-on-demand',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const found = /let http2\ntry \{\n  http2 = require\('node:http2'\)\n\} catch \{\n  \/\/ @ts-ignore\n  http2 = \{ constants: \{\} \}\n\}\n\nconst \{\n  constants: \{\n([\s\S]*?)\n  \}\n\} = http2\n/.exec(text);
      if (!found) throw new Error(`${args.path}: undici's node:http2 load is not the text bundleCli.mjs replaces`);
      const names = found[1].split(',').map((name) => name.trim());
      const values = names.map((name) => {
        if (!(name in http2Constants)) throw new Error(`${args.path}: node:http2 has no constant ${name}`);
        return `const ${name} = ${JSON.stringify(http2Constants[name])}`;
      });
      const lazy = "let http2Module\nconst http2 = { connect: (...args) => (http2Module ??= require('node:http2')).connect(...args) }\n";
      const rest = text.slice(found.index + found[0].length);
      const uses = rest.match(/\bhttp2\.\w+/g) ?? [];
      if (uses.some((use) => use !== 'http2.connect')) throw new Error(`${args.path}: uses ${uses.join(', ')} of node:http2 beyond connect`);
      return { contents: text.slice(0, found.index) + lazy + values.join('\n') + '\n' + rest, loader: 'js' };
    });
  },
};

/**
 * A graceful `close()` of an undici dispatcher ends in `destroy()` with a new ClientDestroyedError,
 * which the client hands to its socket's `destroy(err)`; node's streams read `err.stack` there
 * (node:internal/streams/destroy, to keep V8 from holding the frames). Formatting a stack with a
 * frame in rxagent.cjs makes V8 compute the line ends of the whole 2.5 MB bundle: ~29 M
 * instructions, 6-7 % of a whole `-p` run (callgrind), at every exit, for an error nobody sees
 * (after a graceful close no request is left to fail; only a 'disconnect' listener gets it, and
 * the command has none). In the bin, the error of a graceful close is made without stack frames:
 * same class, message and code. The build fails if undici's text changed.
 */
const undiciCloseWithoutStack = {
  name: 'undici-close-without-stack',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]dispatcher-base\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const close = '    this[kClose]()\n      .then(() => this.destroy())\n';
      const at = text.indexOf(close);
      if (at < 0 || text.indexOf(close, at + 1) >= 0 || !/\n {4}if \(!err\) \{\n {6}err = new ClientDestroyedError\(\)\n/.test(text)) {
        throw new Error(`${args.path}: undici's graceful close is not the text bundleCli.mjs replaces`);
      }
      const closedError =
        '\nfunction closedError () {\n  const limit = Error.stackTraceLimit\n  Error.stackTraceLimit = 0\n  try {\n    return new ClientDestroyedError()\n  } finally {\n    Error.stackTraceLimit = limit\n  }\n}\n';
      return { contents: text.slice(0, at) + '    this[kClose]()\n      .then(() => this.destroy(closedError()))\n' + text.slice(at + close.length) + closedError, loader: 'js' };
    });
  },
};

/**
 * marked-terminal renders the interactive view's Markdown; it brings highlight.js, parse5 and
 * emojilib: 1.7 MB of the 4.2 MB bundle, which every start read and kept as a string (reading a
 * fresh 4 MB here costs 3-9 ms: page faults). It is only ever loaded with import() and shares no
 * module with the rest of the command, so it is a bundle of its own beside rxagent.cjs
 * (rxagent-marked-terminal.cjs), which the view's first Markdown loads through the launcher.
 */
const MARKED_TERMINAL = 'rxagent-marked-terminal.cjs';
const markedTerminalApart = {
  name: 'marked-terminal-apart',
  setup(builder) {
    builder.onResolve({ filter: /^marked-terminal$/ }, (args) => {
      if (args.kind !== 'dynamic-import') throw new Error(`${args.importer}: marked-terminal is bundled apart and must be loaded with import()`);
      return { path: `./${MARKED_TERMINAL}`, external: true };
    });
  },
};

await build({
  absWorkingDir: fileURLToPath(root),
  entryPoints: [fileURLToPath(import.meta.resolve('marked-terminal'))],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: out(`dist/src/cli/${MARKED_TERMINAL}`),
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'external',
  logLevel: 'warning',
});

await build({
  absWorkingDir: fileURLToPath(root),
  entryPoints: ['src/cli/main.ts'],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: BUNDLE,
  // The OpenTelemetry SDK and exporters load only when telemetry is on; its API is bundled: every
  // run requires it at load, and as a package it costs a resolve and a compile per file.
  external: ['mvdan-sh', 'pg-native', '@opentelemetry/core', '@opentelemetry/resources', '@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-*'],
  alias: { rxjs: './node_modules/rxjs/dist/esm/index.js' },
  // The launcher passes the bundle's file URL: paths found next to the code (workers, package.json) resolve as before.
  define: { 'import.meta.url': '__rxagentModuleUrl' },
  plugins: [zodWithoutLocales, undiciHttp2OnDemand, undiciCloseWithoutStack, markedTerminalApart],
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'external',
  logLevel: 'warning',
});
// The launcher wraps the file in a function: main.ts's `#!` line would be a syntax error there.
// And an import() in a vm.Script run from a code cache finds no loader on Node 20 ("A dynamic import
// callback was not specified"): the externals esbuild leaves as import() (the OpenTelemetry SDK)
// go through the launcher's own import(), which resolves them from the same directory.
const bundled = readFileSync(BUNDLE, 'utf8').replace(/^#!.*\n/, '');
const rewritten = bundled.replace(/\bimport\((?=")/g, '__rxagentImport(');
if (/\bimport\(/.test(rewritten)) throw new Error('rxagent.cjs: an import() the launcher does not route (not a string literal)');
// The launcher reads the file as latin1 (a copy, where UTF-8 is a decode: 3-6 ms for 4 MB); the same text only if it is ASCII.
if (/[^\x00-\x7f]/.test(rewritten)) throw new Error('rxagent.cjs is not ASCII: the launcher reads it as latin1');
writeFileSync(BUNDLE, rewritten);
const launcher = readFileSync(out('scripts/cliLauncher.js'), 'utf8');
const bundleId = createHash('sha256').update(rewritten).digest('hex').slice(0, 16);
if (!launcher.includes("'rxagent-bundle-id'")) throw new Error('scripts/cliLauncher.js: no bundle id to fill in');
if (!launcher.includes("['rxagent-builtins']")) throw new Error('scripts/cliLauncher.js: no list of built-ins to fill in');
const writeBin = async (builtins) => {
  const filled = launcher.replace("'rxagent-bundle-id'", `'${bundleId}'`).replace("['rxagent-builtins']", JSON.stringify(builtins));
  writeFileSync(BIN, filled);
  chmodSync(BIN, 0o755);
  writeFileSync(BIN_CJS, await launcherAsCommonJs(filled));
  chmodSync(BIN_CJS, 0o755);
};
await writeBin([]);
await trainCodeCache();
await writeBin(builtinsTheRunLoaded());

/**
 * The launcher (an ES module) as a CommonJS file: esbuild turns its imports into require() of the
 * same built-ins and its import.meta.url into the file's own URL; its import() of the bundle's
 * externals stays an import(), which node gives a CommonJS file too. The checks fail the build if
 * the launcher gains something this does not carry over.
 */
async function launcherAsCommonJs(text) {
  const { code, warnings } = await transform(text, {
    loader: 'js',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    define: { 'import.meta.url': '__rxagentLauncherUrl' },
    banner:
      '// Made by scripts/bundleCli.mjs from scripts/cliLauncher.js, which says what this does: the same launcher as CommonJS (node starts it without its ES-module loader).\n' +
      'const __rxagentLauncherUrl = require("node:url").pathToFileURL(__filename).href;',
    logLevel: 'silent',
  });
  if (warnings.length > 0) throw new Error(`scripts/cliLauncher.js as CommonJS: ${warnings.map((w) => w.text).join('; ')}`);
  if (!code.startsWith('#!/usr/bin/env node\n')) throw new Error('main.cjs: the #! line is not first');
  if (/\bimport\.meta\b/.test(code)) throw new Error('main.cjs: an import.meta is left');
  if (!/^const BUILTINS = \[.*\];$/m.test(code)) throw new Error('main.cjs: no BUILTINS line (the tests read it)');
  return code;
}

/**
 * The public built-ins node loaded in the training run (process.moduleLoadList, in load order),
 * for the launcher to load before it sets V8 flags (cliLauncher.js says why). Not node's internals
 * (not loadable by name), the `_`-prefixed legacy aliases or the deprecated ones (a warning on load).
 */
function builtinsTheRunLoaded() {
  const file = `${BUNDLE}.cache.modules.json`;
  const loaded = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file);
  const deprecated = new Set(['sys', 'punycode', 'constants', 'domain']);
  const names = loaded
    .filter((entry) => entry.startsWith('NativeModule '))
    .map((entry) => entry.slice('NativeModule '.length))
    .filter((name) => builtinModules.includes(name) && !name.startsWith('_') && !deprecated.has(name));
  if (!names.includes('http')) throw new Error(`the training run's module list has no http: ${names.join(' ')}`);
  return names;
}

/**
 * Runs `rxagent -p hi` once (the bin, main.cjs) against a canned loopback reply; the bin writes its
 * code cache at exit. main.js runs the same bundle and loads the same public built-ins.
 */
async function trainCodeCache() {
  const { encodeSSEStream, scriptedMessageToEvents } = await import(new URL('dist/src/testing/encodeScript.js', root).href);
  const reply = encodeSSEStream(scriptedMessageToEvents({ kind: 'message', blocks: [{ type: 'text', text: 'hello' }] }).map((e) => e.event));
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(reply);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = mkdtempSync(join(tmpdir(), 'rxagent-code-cache-'));
  const cwd = join(dir, 'work');
  const home = join(dir, 'home');
  mkdirSync(cwd);
  mkdirSync(home);
  try {
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: home,
      ANTHROPIC_API_KEY: 'build-not-a-key',
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
      RXAGENT_BUILD_CODE_CACHE: `${BUNDLE}.cache`,
    };
    const child = spawn(process.execPath, [BIN_CJS, '-p', 'hi'], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', resolve);
    });
    if (code !== 0) throw new Error(`the code cache's training run failed (exit ${code}): ${stderr.slice(0, 800)}`);
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
