/**
 * `rxagent serve` as a real child process (the BUILT command, as in test/cli) against the
 * scripted model server, and a real Chromium driven by playwright-core (never downloaded: the
 * Debian package at /usr/bin/chromium, a fresh profile per browser).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CLI } from '../cli/helpers.js';

export interface ServeProcess {
  readonly url: string;
  readonly base: string;
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code (the server ends its runs first). */
  stop(): Promise<number | null>;
}

export function startServe(
  args: readonly string[],
  options: { cwd: string; home: string; baseURL: string; env?: Readonly<Record<string, string>> },
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    cwd: options.cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: options.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: options.baseURL, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /(http:\/\/[^\s]+)/.exec(out);
      if (match) {
        const url = match[1]!;
        resolve({
          url,
          base: new URL(url).origin,
          child,
          stdout: () => out,
          stderr: () => err,
          stop: () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    child.on('exit', (code) => reject(new Error(`rxagent serve exited (${code}) before printing its URL:\n${out}\n${err}`)));
  });
}

export { gate } from '../../src/testing/gate.js';
export { eventually } from '../eventually.js';

export async function postJson(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

export interface Browser {
  readonly context: BrowserContext;
  /** A new tab; its console errors and page errors are collected in `errors`. */
  newPage(): Promise<Page & { errors: string[] }>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'rxagent-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1100, height: 760 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async newPage() {
      const page = (await context.newPage()) as Page & { errors: string[] };
      page.errors = [];
      page.on('console', (m) => {
        if (m.type() === 'error') page.errors.push(m.text());
      });
      page.on('pageerror', (e) => page.errors.push(e.message));
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Where the tests' screenshots go (look at them; one is kept in docs/ for the README). */
export const SCREENSHOTS = process.env['RXAGENT_SCREENSHOTS'] ?? join(tmpdir(), 'rxagent-serve-screenshots');

export interface SseEvent {
  readonly id: number;
  readonly at: number;
  readonly event: { readonly type: string; readonly [key: string]: unknown };
}

/**
 * Reads a session's SSE stream until `until(event)` holds (then closes the connection, as a tab
 * that goes away would). `lastEventId` resumes after that id.
 */
export async function readEvents(url: string, until: (e: SseEvent, all: SseEvent[]) => boolean, lastEventId?: number): Promise<SseEvent[]> {
  const { createParser } = await import('eventsource-parser');
  const controller = new AbortController();
  const res = await fetch(url, { headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }, signal: controller.signal });
  if (res.status !== 200 || !res.body) throw new Error(`events: HTTP ${res.status}`);
  const events: SseEvent[] = [];
  let done = false;
  const parser = createParser({
    onEvent: (message) => {
      if (done) return;
      const data = JSON.parse(message.data) as { at: number; event: SseEvent['event'] };
      const e: SseEvent = { id: Number(message.id), at: data.at, event: data.event };
      events.push(e);
      if (until(e, events)) done = true;
    },
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  while (!done) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  controller.abort();
  return events;
}

export async function getJson(url: string): Promise<any> {
  return (await fetch(url)).json();
}
