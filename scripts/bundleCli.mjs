/**
 * Bundles the `rxagent` command (`npm run build`, after tsc): src/cli/main.ts → dist/src/cli/main.js,
 * with the modes a `-p` run does not use split into lazy chunks (dist/src/chunks/).
 *
 * Two choices here make the command start sooner (issue 20 §3); every byte the first request
 * waits for is compiled and evaluated at each start (about 30 ms per MB on this machine):
 * - rxjs from its ES-module build: the `node` condition of its package exports picks the
 *   CommonJS build, which esbuild cannot tree-shake (360 KB, all of it, at every start).
 * - zod without its translated error messages: zod's index re-exports every locale
 *   (`z.locales`, `z.core.locales`; about 400 KB) and esbuild cannot drop a re-exported
 *   namespace. Nothing in rxagent reads them; the English messages zod uses by default come from
 *   their own module and stay. A use of `z.locales` in the bin would find an empty namespace.
 * The library itself (`dist/src`, from tsc) imports zod and rxjs as they are.
 */
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);

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

await build({
  absWorkingDir: new URL('.', root).pathname,
  entryPoints: ['src/cli/main.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  splitting: true,
  outdir: 'dist/src',
  entryNames: 'cli/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  external: ['mvdan-sh', 'pg-native', '@opentelemetry/*'],
  alias: { rxjs: './node_modules/rxjs/dist/esm/index.js' },
  plugins: [zodWithoutLocales],
  logLevel: 'warning',
  // Bundled CommonJS modules (undici, pg) call require() for node's built-ins.
  banner: { js: "import { createRequire as __rxagentCreateRequire } from 'node:module'; const require = __rxagentCreateRequire(import.meta.url);" },
});
