/**
 * The page of `rxagent serve` in a real Chromium (playwright-core, the Debian browser): it loads
 * without console errors; a prompt typed in the text box (Enter) streams its answer in (a
 * snapshot while the model's response is held open has the first part, not the end); tool cards
 * show their names and finish; Allow and Deny do what they say; Stop ends a long tool and its
 * process; a reload mid-run resumes the stream; two tabs show the same run. Screenshots go to
 * SCREENSHOTS (see helpers.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { assertBuilt, CLI, makeSandbox, removeSandboxes } from '../cli/helpers.js';
import { hasToolResult, lastUserText, systemOf } from '../agents/helpers.js';
import { GENERAL_PURPOSE_AGENT } from '../../src/agents/definitions.js';
import { eventually, gate, launchBrowser, postJson, SCREENSHOTS, startServe, type Browser, type ServeProcess } from './helpers.js';
import { processesWith } from '../security/processes.js';

const gates = { stream: gate(), reload: gate(), tabs: gate() };
/** A sleep length no other process uses, so the stop test can find its host process. */
const STOP_SLEEP = `300.${process.pid}`;
let model: ScriptedServer;
let serve: ServeProcess;
let browser: Browser;
let sandbox: { cwd: string; home: string };

/** The first user text of the conversation: which scenario this request belongs to. */
function scenarioOf(req: MessagesRequest): string {
  const first = req.messages[0]!;
  return typeof first.content === 'string' ? first.content : first.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ');
}

function script(req: MessagesRequest): ScriptedResponse {
  if (systemOf(req) === GENERAL_PURPOSE_AGENT.prompt) return { kind: 'message', blocks: [{ type: 'text', text: 'The child counted 3 files.' }] };
  const scenario = scenarioOf(req);
  const afterTool = hasToolResult(req);
  const text = (t: string, extra: Partial<ScriptedResponse> = {}): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: t, chunkSize: 6 }], ...extra }) as ScriptedResponse;
  const tool = (name: string, input: Record<string, unknown>, lead?: string, extra: Partial<ScriptedResponse> = {}): ScriptedResponse =>
    ({ kind: 'message', blocks: [...(lead ? [{ type: 'text' as const, text: lead, chunkSize: 6 }] : []), { type: 'tool_use', name, input }], ...extra }) as ScriptedResponse;
  if (scenario.startsWith('stream')) {
    if (afterTool) return text('And **this** is the end.');
    return tool('Read', { file_path: join(sandbox.cwd, 'notes.txt') }, 'The first part of the answer. ', { endAfter: gates.stream.promise });
  }
  if (scenario.startsWith('allow')) return afterTool ? text('Created it.') : tool('Bash', { command: 'touch allowed.txt' });
  if (scenario.startsWith('deny')) return afterTool ? text('Understood, nothing created.') : tool('Bash', { command: 'touch denied.txt' });
  if (scenario.startsWith('stop')) return afterTool ? text('stopped') : tool('Bash', { command: `echo started > sleep.pid; exec sleep ${STOP_SLEEP}` });
  if (scenario.startsWith('reload')) return text('Text sent before the reload.', { endAfter: gates.reload.promise });
  if (scenario.startsWith('tabs')) return text('Both tabs see this.', { endAfter: gates.tabs.promise });
  if (scenario.startsWith('delegate')) {
    return afterTool ? text('The subagent says 3.') : tool('Agent', { description: 'count files', prompt: 'count the files', subagent_type: 'general-purpose' });
  }
  if (scenario.startsWith('showcase')) {
    const notes = join(sandbox.cwd, 'notes.txt');
    const last = lastUserText(req);
    if (!afterTool) return { kind: 'message', blocks: [{ type: 'thinking', thinking: 'Read the notes first, then fix the typo.', signature: 's' }, { type: 'text', text: "I'll read the notes, then fix the typo." }, { type: 'tool_use', name: 'Read', input: { file_path: notes } }] };
    if (req.messages.length <= 3) return tool('Edit', { file_path: notes, old_string: 'teh plan', new_string: 'the plan' }, 'Found it: **teh** should be **the**.');
    void last;
    return text('Fixed:\n\n- `notes.txt`: *teh plan* → *the plan*\n- nothing else changed');
  }
  return text(`You said: ${lastUserText(req).slice(0, 40)}`);
}

beforeAll(async () => {
  assertBuilt();
  sandbox = makeSandbox({ 'notes.txt': 'Notes\nteh plan\nmore lines\n' });
  mkdirSync(SCREENSHOTS, { recursive: true });
  model = await startScriptedServer({ script });
  serve = await startServe(['--port', '0'], { ...sandbox, baseURL: model.baseURL });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  Object.values(gates).forEach((g) => g.open());
  await browser?.close();
  await serve?.stop();
  await model?.close();
  removeSandboxes();
});

/** A fresh session, opened in a new tab at its URL. */
async function openSession(): Promise<{ page: Page & { errors: string[] }; sessionId: string }> {
  const { json } = await postJson(`${serve.base}/api/sessions`, {});
  const sessionId = json.session.sessionId as string;
  const page = await browser.newPage();
  await page.goto(`${serve.url}?session=${sessionId}`);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, sessionId };
}

async function send(page: Page, text: string): Promise<void> {
  await page.locator('#prompt').fill(text);
  await page.locator('#prompt').press('Enter');
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
const lastTurnEnd = (page: Page) => page.locator('.turn-end').last();

describe('rxagent serve in a real browser', () => {
  it('the page loads with no console errors and shows an empty conversation', async () => {
    const page = await browser.newPage();
    await page.goto(serve.url);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.locator('#prompt').isVisible()).toBe(true);
    expect(await page.locator('#stop').textContent()).toBe('Stop');
    expect(page.url()).toMatch(/\?session=/);
    expect(page.errors).toEqual([]);
    await shot(page, '01-empty');
    await page.close();
  });

  it('Enter sends; the answer streams in (first part before the end); the tool card shows its name and finishes', async () => {
    const { page } = await openSession();
    await page.locator('#prompt').fill('stream a two-part answer');
    // Shift+Enter is a new line, not a send.
    await page.locator('#prompt').press('Shift+Enter');
    expect(await page.locator('#prompt').inputValue()).toBe('stream a two-part answer\n');
    await page.locator('#prompt').press('Enter');
    expect(await page.locator('#prompt').inputValue()).toBe('');
    // The response is held open by the test: the first part is on the page, the end is not.
    await page.getByText('The first part of the answer.').waitFor();
    const mid = await page.locator('#conversation').innerText();
    expect(mid).toContain('The first part of the answer.');
    expect(mid).not.toContain('the end');
    expect(await page.locator('.turn-end').count()).toBe(0);
    expect(await page.locator('#status').textContent()).toBe('running');
    // Live counters mid-stream: the held response's input is counted, its output estimated ("~"),
    // and so is its cost (no response has completed yet, so all of it is this one's).
    const midCounters = (await page.locator('#counters').textContent())!;
    expect(midCounters).toMatch(/^[1-9][\d,]* in · ~[1-9][\d,]* out tokens · ~\$0\.\d{4}$/);
    expect(midCounters).not.toMatch(/\$0\.0000$/);
    await shot(page, '02-mid-stream');
    gates.stream.open();
    const card = page.locator('.tool[data-tool-name="Read"]');
    await card.waitFor();
    expect(await card.locator('.tool-name').textContent()).toBe('Read');
    await page.locator('.tool[data-tool-name="Read"][data-status="done"]').waitFor();
    await lastTurnEnd(page).waitFor();
    const end = await page.locator('#conversation').innerText();
    expect(end).toContain('The first part of the answer.');
    expect(end).toContain('And this is the end.');
    // Markdown: **this** is bold.
    expect(await page.locator('.msg.assistant strong', { hasText: 'this' }).count()).toBe(1);
    expect(await lastTurnEnd(page).getAttribute('data-reason')).toBe('completed');
    // Ended: the API's counts, no estimate.
    expect(await page.locator('#counters').textContent()).toMatch(/^[1-9][\d,]* in · [1-9][\d,]* out tokens · \$0\.\d{4}$/);
    await shot(page, '03-streamed');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('Allow lets the call run: the file exists, the card is done', async () => {
    const { page } = await openSession();
    await send(page, 'allow me to create a file');
    const request = page.locator('.permission[data-tool-name="Bash"]');
    await request.waitFor();
    expect(await request.innerText()).toContain('touch allowed.txt');
    await shot(page, '04-permission');
    await request.getByRole('button', { name: 'Allow' }).click();
    await page.locator('.tool[data-tool-name="Bash"][data-status="done"]').waitFor();
    await lastTurnEnd(page).waitFor();
    expect(existsSync(join(sandbox.cwd, 'allowed.txt'))).toBe(true);
    expect(await page.locator('.permission').count()).toBe(0);
    expect(await page.locator('#conversation').innerText()).toContain('Created it.');
    await page.close();
  });

  it('Deny refuses the call: no file, the card says it failed, the model is told', async () => {
    const { page } = await openSession();
    await send(page, 'deny this file creation');
    const request = page.locator('.permission[data-tool-name="Bash"]');
    await request.waitFor();
    await request.getByRole('button', { name: 'Deny' }).click();
    await page.locator('.tool[data-tool-name="Bash"][data-status="error"]').waitFor();
    await lastTurnEnd(page).waitFor();
    expect(existsSync(join(sandbox.cwd, 'denied.txt'))).toBe(false);
    expect(await page.locator('.tool[data-tool-name="Bash"] .result').innerText()).toMatch(/declined|denied/i);
    expect(await page.locator('#conversation').innerText()).toContain('Understood, nothing created.');
    await page.close();
  });

  it('Stop ends a long tool within a generous bound, and its process is gone', async () => {
    const { page } = await openSession();
    await send(page, 'stop this long sleep');
    const request = page.locator('.permission[data-tool-name="Bash"]');
    await request.waitFor();
    await request.getByRole('button', { name: 'Allow' }).click();
    await page.locator('.tool[data-tool-name="Bash"][data-status="running"]').waitFor();
    const pidFile = join(sandbox.cwd, 'sleep.pid');
    await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', { what: 'the tool writing its pid' });
    // The command runs in the sandbox's own PID namespace: its $$ is not a host pid, so the host
    // process is found by its unique command line.
    await eventually(() => processesWith(`sleep ${STOP_SLEEP}`).length > 0, { what: 'the sleep to show on the host' });
    const pid = processesWith(`sleep ${STOP_SLEEP}`)[0]!;
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(true);
    await shot(page, '05-running-tool');
    await page.locator('#stop').click();
    await page.locator('.tool[data-tool-name="Bash"][data-status="cancelled"]').waitFor({ timeout: 60_000 });
    await lastTurnEnd(page).waitFor({ timeout: 60_000 });
    expect(await lastTurnEnd(page).getAttribute('data-reason')).toMatch(/^aborted_/);
    await eventually(() => !alive(), { what: `the end of process ${pid}`, timeoutMs: 60_000 });
    expect(await page.locator('#stop').isDisabled()).toBe(true);
    await page.close();
  });

  it('a reload mid-run resumes the running stream', async () => {
    const { page } = await openSession();
    await send(page, 'reload while it streams');
    await page.getByText('Text sent before the reload.').waitFor();
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    // After the reload: what was said so far, the run still live.
    await page.getByText('Text sent before the reload.').waitFor();
    expect(await page.locator('#status').textContent()).toBe('running');
    expect(await page.locator('.msg.user').allInnerTexts()).toEqual(['reload while it streams']);
    gates.reload.open();
    await lastTurnEnd(page).waitFor();
    // Exactly one answer: the replay did not double it.
    expect(await page.locator('.msg.assistant').count()).toBe(1);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('two tabs see the same run', async () => {
    const { page: first, sessionId } = await openSession();
    const second = await browser.newPage();
    await second.goto(`${serve.url}?session=${sessionId}`);
    await second.waitForSelector('body[data-ready="true"]');
    const requestsBefore = model.requests.length;
    await send(first, 'tabs share this run');
    await first.getByText('Both tabs see this.').waitFor();
    await second.getByText('Both tabs see this.').waitFor();
    expect(await second.locator('.msg.user').allInnerTexts()).toEqual(['tabs share this run']);
    gates.tabs.open();
    await lastTurnEnd(first).waitFor();
    await lastTurnEnd(second).waitFor();
    // One run for both tabs: the model was asked once.
    expect(model.requests.length - requestsBefore).toBe(1);
    await shot(second, '06-second-tab');
    await first.close();
    await second.close();
  });

  it("a subagent's conversation is nested under its Agent call", async () => {
    const { page } = await openSession();
    await send(page, 'delegate the counting');
    await lastTurnEnd(page).waitFor();
    const agent = page.locator('.tool[data-tool-name="Agent"][data-status="done"]');
    await agent.waitFor();
    const nested = agent.locator('.subagent[data-agent-type="general-purpose"]');
    expect(await nested.locator('.msg.user').allInnerTexts()).toEqual(['count the files']);
    expect(await nested.locator('.msg.assistant').allInnerTexts()).toEqual(['The child counted 3 files.']);
    // The parent's own answer is outside the nested view.
    expect(await page.locator('#conversation > .turn .msg.assistant', { hasText: 'The subagent says 3.' }).count()).toBe(1);
    expect(await nested.getByText('The subagent says 3.').count()).toBe(0);
    await shot(page, '09-subagent');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('showcase: thinking, a diff awaiting approval, markdown (the README screenshot)', async () => {
    const { page } = await openSession();
    await send(page, 'showcase: fix the typo in notes.txt');
    const request = page.locator('.permission[data-tool-name="Edit"]');
    await request.waitFor();
    const diff = page.locator('.tool[data-tool-name="Edit"] .diff');
    expect(await diff.locator('.del').allInnerTexts()).toEqual(['- teh plan']);
    expect(await diff.locator('.add').allInnerTexts()).toEqual(['+ the plan']);
    await shot(page, '07-showcase-approval');
    await request.getByRole('button', { name: 'Allow' }).click();
    await lastTurnEnd(page).waitFor();
    expect(readFileSync(join(sandbox.cwd, 'notes.txt'), 'utf8')).toContain('the plan');
    await page.locator('details.thinking summary').first().click();
    await shot(page, '08-showcase-done');
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('the session picker: New opens an empty session, choosing one shows its conversation, a stored one is resumed', async () => {
    // A conversation of this project stored on disk by a print-mode run (not live in the server).
    // (Asynchronously: the scripted model answers from this very process; stdin closed, as -p reads it.)
    const running = promisify(execFile)(process.execPath, [CLI, '-p', 'picker stored chat', '--output-format', 'json'], {
      cwd: sandbox.cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: sandbox.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: model.baseURL },
      encoding: 'utf8',
      timeout: 120_000,
    });
    running.child.stdin?.end();
    const printed = await running;
    const storedId = (JSON.parse(printed.stdout) as { session_id: string }).session_id;

    const { page, sessionId: first } = await openSession();
    await send(page, 'picker first session');
    await lastTurnEnd(page).waitFor();
    const picker = page.locator('#sessions');
    // The list is read again when the turn ends: this session now goes by its first prompt.
    await picker.locator(`option[value="live:${first}"]`, { hasText: 'picker first session' }).waitFor({ state: 'attached' });
    expect(await picker.inputValue()).toBe(`live:${first}`);
    expect(await picker.locator(`option[value="stored:${storedId}"]`).count()).toBe(1);

    const switched = (from: string) => page.waitForURL((url) => url.searchParams.get('session') !== from).then(() => page.waitForSelector('body[data-ready="true"]'));
    let navigated = switched(first);
    await picker.selectOption('new');
    await navigated;
    const fresh = new URL(page.url()).searchParams.get('session')!;
    expect(fresh).not.toBe(first);
    expect(await page.locator('.msg').count()).toBe(0);
    expect(await picker.inputValue()).toBe(`live:${fresh}`);

    navigated = switched(fresh);
    await picker.selectOption(`live:${first}`);
    await navigated;
    await page.getByText('You said: picker first session').waitFor();
    expect(new URL(page.url()).searchParams.get('session')).toBe(first);

    navigated = switched(first);
    await picker.selectOption(`stored:${storedId}`);
    await navigated;
    // The stored conversation, resumed as a live session: its history is on the page.
    await page.getByText('You said: picker stored chat').waitFor();
    expect(await page.locator('.msg.user').allInnerTexts()).toEqual(['picker stored chat']);
    // A resumed session goes by its first prompt too.
    expect(await picker.locator('option:checked').textContent()).toMatch(/^picker stored chat · /);
    await shot(page, '10-session-picker');
    expect(page.errors).toEqual([]);
    await page.close();
  });
});
