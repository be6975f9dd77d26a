/**
 * The page's HTML shell and its bundle. The bundle is built by `npm run build` (esbuild, from
 * page/main.ts) next to this module in dist/; run from the sources, the built one is used.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PAGE_CSS } from './styles.js';

const CANDIDATES = [new URL('./app.js', import.meta.url), new URL('../../../dist/src/serve/page/app.js', import.meta.url)];

let cached: string | undefined;

export function readBundle(): string | undefined {
  if (cached !== undefined) return cached;
  for (const candidate of CANDIDATES) {
    const path = fileURLToPath(candidate);
    if (existsSync(path)) return (cached = readFileSync(path, 'utf8'));
  }
  return undefined;
}

const escapeAttr = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function pageHtml(token: string | undefined): string {
  const query = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rxagent</title>
<link rel="icon" href="data:,">
<style>${PAGE_CSS}</style>
</head>
<body>
<header id="bar">
  <strong>rxagent</strong>
  <select id="sessions" aria-label="Session"></select>
  <span id="session" class="dim"></span>
  <span class="spacer"></span>
  <span id="counters" class="dim" data-testid="counters"></span>
  <span id="status" class="status" data-testid="status">idle</span>
  <button id="stop" type="button" disabled>Stop</button>
</header>
<main id="conversation" aria-live="polite"></main>
<section id="permissions" aria-label="Permission requests"></section>
<section id="questions" aria-label="Questions from MCP servers"></section>
<form id="composer">
  <textarea id="prompt" rows="3" placeholder="Ask the agent. Enter sends, Shift+Enter is a new line." aria-label="Prompt" autofocus></textarea>
</form>
<script type="module" src="/app.js${escapeAttr(query)}"></script>
</body>
</html>
`;
}
