/**
 * `/compact` on the `rxagent serve` page, in a real Chromium, as in the terminal view: after two
 * exchanges, `/compact keep the names` asks the model for a summary (with the instructions), the
 * page shows a manual compaction boundary and the turn's end, and the next prompt goes on from
 * the summary instead of the whole conversation. A single exchange has nothing to compact; Stop
 * while the summary is written cancels it and leaves the conversation as it was.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPACT_SYSTEM_PROMPT } from '../../src/context/compactPrompt.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { lastUserText } from '../agents/helpers.js';
import { assertBuilt, makeSandbox, removeSandboxes } from '../cli/helpers.js';
import { gate, launchBrowser, postJson, readEvents, SCREENSHOTS, startServe, type Browser, type ServeProcess } from './helpers.js';

const SUMMARY = 'SUMMARY: Ada asked twice; keep the name Ada.';
const systemOf = (request: MessagesRequest) => JSON.stringify(request.system ?? '');

const held = gate();

function script(request: MessagesRequest): ScriptedResponse {
  if (systemOf(request).includes('hold this one')) return { kind: 'message', blocks: [{ type: 'text', text: 'never used' }], endAfter: held.promise };
  if (systemOf(request).includes(COMPACT_SYSTEM_PROMPT.slice(0, 40))) return { kind: 'message', blocks: [{ type: 'text', text: SUMMARY }] };
  return { kind: 'message', blocks: [{ type: 'text', text: `answer to: ${lastUserText(request)}` }] };
}

let model: ScriptedServer;
let serve: ServeProcess;
let browser: Browser;

beforeAll(async () => {
  assertBuilt();
  mkdirSync(SCREENSHOTS, { recursive: true });
  model = await startScriptedServer({ script });
  const files = { '.claude/commands/greet.md': '---\ndescription: Greets someone\n---\nSay hello to $ARGUMENTS politely.\n' };
  serve = await startServe(['--port', '0'], { ...makeSandbox(files), baseURL: model.baseURL });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  held.open();
  await browser?.close();
  await serve?.stop();
  await model?.close();
  removeSandboxes();
});

describe('/compact on the serve page', () => {
  it('compacts the conversation now; the next prompt goes on from the summary', { timeout: 90_000 }, async () => {
    const page = await browser.newPage();
    await page.goto(serve.url);
    await page.waitForSelector('body[data-ready="true"]');
    const send = async (text: string, turns: number) => {
      await page.locator('#prompt').fill(text);
      await page.locator('#prompt').press('Enter');
      await page.locator('.turn-end').nth(turns - 1).waitFor();
    };
    await send('I am Ada', 1);
    // One exchange: nothing to compact, and no summary is asked for.
    await send('/compact', 2);
    await page.getByText('Nothing to compact yet: the conversation is a single exchange.').waitFor();
    expect(model.requests).toHaveLength(1);
    await send('what is my name?', 3);
    await send('/compact keep the names', 4);
    const boundary = page.locator('.boundary');
    await boundary.waitFor();
    expect(await boundary.textContent()).toMatch(/^context compacted \(manual\): \d+ → \d+ tokens$/);
    expect(model.requests).toHaveLength(3);
    const summaryRequest = JSON.stringify(model.requests[2]!.body);
    expect(summaryRequest).toContain('keep the names');
    await page.screenshot({ path: join(SCREENSHOTS, '13-compact.png') });
    await send('and now?', 5);
    const next = model.requests[3]!.body!;
    expect(JSON.stringify(next.messages)).toContain(SUMMARY);
    expect(JSON.stringify(next.messages)).not.toContain('answer to: I am Ada');
    expect(await page.locator('.turn-end').nth(4).textContent()).toContain('completed');

    // Stop while the summary is being written: cancelled, the conversation as it was.
    await page.locator('#prompt').fill('/compact hold this one');
    await page.locator('#prompt').press('Enter');
    await page.locator('#stop:not([disabled])').waitFor();
    await page.locator('#stop').click();
    const stopped = page.locator('.turn-end').nth(5);
    await stopped.waitFor();
    expect(await stopped.getAttribute('data-reason')).toBe('aborted_streaming');
    expect(await stopped.textContent()).toContain('compaction cancelled; the conversation is unchanged');
    held.open();
    await send('after the stop', 7);
    const after = JSON.stringify(model.requests.at(-1)!.body!.messages);
    expect(after).toContain(SUMMARY);
    expect(after).toContain('answer to: and now?');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('a custom command (.claude/commands) sent to serve is expanded before the model sees it', async () => {
    const created = await postJson(`${serve.base}/api/sessions`, { prompt: '/greet Ada' });
    const id = created.json.session.sessionId as string;
    const events = await readEvents(`${serve.base}/api/sessions/${id}/events`, (e) => e.event.type === 'terminal');
    expect(events.at(-1)!.event).toMatchObject({ type: 'terminal', reason: 'completed', lastAssistantText: 'answer to: Say hello to Ada politely.' });
  });
});
