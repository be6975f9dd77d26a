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
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

// The command's V8 flags (main.ts says why), set before the compile: V8 accepts a code cache only
// under the flags it was made with, and the build's run made it with these set.
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
setFlagsFromString('--liftoff-only');

const bundle = new URL('./rxagent.cjs', import.meta.url);
const cacheFile = new URL('./rxagent.cjs.cache', import.meta.url);
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // no cache shipped (a partial build): compile from source
}
const filename = fileURLToPath(bundle);
// The file is ASCII (the build checks it), so latin1 reads the same text without a UTF-8 decode.
// The function a CommonJS module is wrapped in, plus the bundle's import.meta.url (esbuild defines
// it as a parameter) and the import() its external modules load with (bundleCli.mjs says why).
const script = new Script(`(function (exports, require, module, __filename, __dirname, __rxagentModuleUrl, __rxagentImport) {${readFileSync(bundle, 'latin1')}\n})`, {
  filename,
  cachedData,
});
// Only `npm run build` sets this: its training run writes the cache at exit, when every function the run used is compiled.
const cacheOut = process.env['RXAGENT_BUILD_CODE_CACHE'];
if (cacheOut) process.on('exit', () => writeFileSync(cacheOut, script.createCachedData()));
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, filename, fileURLToPath(new URL('.', bundle)), bundle.href, (specifier) => import(specifier));
