#!/usr/bin/env node
/**
 * The `rxagent` bin as installed (copied to dist/src/cli/main.js by scripts/bundleCli.mjs): it runs
 * the command's one-file bundle, rxagent.cjs beside it, through V8's code cache (issue 20 §3).
 *
 * Node 20 has no compile cache for modules (node:module's is 22+), but a vm.Script takes V8's
 * cachedData: the build runs the command once and keeps the code of every function that run
 * compiled, so a start deserialises code instead of parsing and compiling megabytes of source.
 * A cache this node cannot use (another node version, other V8 flags) is rejected by V8 itself and
 * the bundle compiles from source as usual: slower, never different.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

/**
 * Node's built-in modules the command's `-p` run loads (the build's training run lists them, in the
 * order it loaded them), loaded here BEFORE the flags below are set: node compiles its own modules
 * from a code cache embedded in the binary, and V8 takes a code cache only under the flags it was
 * made with, so every built-in loaded after a flag is set compiles from source instead (http, net,
 * crypto, worker_threads…: ~10 ms more at every start). One missing from this node is skipped.
 */
const BUILTINS = ['rxagent-builtins'];
// (import.meta's first use loads one more of node's modules.)
const bundle = new URL('./rxagent.cjs', import.meta.url);
for (const name of BUILTINS) process.getBuiltinModule(name);

// The command's V8 flags (main.ts says why), set before the compile: V8 accepts a code cache only
// under the flags it was made with, and the build's run made it with these set.
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
setFlagsFromString('--liftoff-only');
setFlagsFromString('--semi-space-growth-factor=8');

const filename = fileURLToPath(bundle);
// The file is ASCII (the build checks it), so latin1 reads the same text without a UTF-8 decode.
const source = readFileSync(bundle, 'latin1');

/**
 * The shipped cache fits only the node that built the package. Under any other node the first run
 * compiles from source (slower than before the cache existed: the whole file) and leaves a cache
 * of its own in the user's cache directory, which the next runs under that node take.
 */
const userCacheDir = join(process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'rxagent');
// V8 checks a cache against the source's length only: the name carries the bundle's content hash
// (put here by the build), so a cache of another rxagent build is never even read.
const BUNDLE_ID = 'rxagent-bundle-id';
const userCache = join(userCacheDir, `code-${BUNDLE_ID}-${process.version}-${process.arch}.cache`);
const readOrNone = (file) => {
  try {
    return readFileSync(file);
  } catch {
    return undefined; // none yet (or a partial build): compile from source
  }
};
const cachedData = readOrNone(userCache) ?? readOrNone(new URL('./rxagent.cjs.cache', import.meta.url));
// The function a CommonJS module is wrapped in, plus the bundle's import.meta.url (esbuild defines
// it as a parameter) and the import() its external modules load with (bundleCli.mjs says why).
const script = new Script(`(function (exports, require, module, __filename, __dirname, __rxagentModuleUrl, __rxagentImport) {${source}\n})`, {
  filename,
  cachedData,
});
// Only `npm run build` sets this: its training run writes the cache at exit, when every function the run used is compiled.
const cacheOut = process.env['RXAGENT_BUILD_CODE_CACHE'];
if (cacheOut) process.on('exit', () => writeFileSync(cacheOut, script.createCachedData()));
// …and the list of node's modules the run loaded, from which the build fills in BUILTINS above.
if (cacheOut) process.on('exit', () => writeFileSync(`${cacheOut}.modules.json`, JSON.stringify(process.moduleLoadList)));
else if (cachedData === undefined || script.cachedDataRejected) process.on('exit', () => saveUserCache(script));
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, filename, fileURLToPath(new URL('.', bundle)), bundle.href, (specifier) => import(specifier));

/** Writes this node's cache (private to the user, whole or not at all); a failure only costs the next start its speed. */
function saveUserCache(compiled) {
  try {
    mkdirSync(userCacheDir, { recursive: true, mode: 0o700 });
    const partial = `${userCache}.${process.pid}.tmp`;
    writeFileSync(partial, compiled.createCachedData(), { mode: 0o600 });
    renameSync(partial, userCache);
  } catch {
    // read-only home, full disk: next time compiles from source again
  }
}
