/**
 * An MCP server's form elicitation on the `rxagent serve` page, in a real Chromium: the real
 * server-everything (stdio) asks mid-call; the page shows a form built from its schema; an answer
 * that does not fit is refused in the page with the reason and nothing is sent, and the reason
 * follows the field as it is corrected; titled enums show their titles; Accept sends the
 * values as an `elicitation` command on the commands route and they reach the server (its tool
 * result echoes them); Decline tells the server so. The route's bad answers get 4xx JSON.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { assertBuilt, makeSandbox, removeSandboxes } from '../cli/helpers.js';
import { hasToolResult } from '../agents/helpers.js';
import { everythingStdio } from '../mcp/servers.js';
import { launchBrowser, postJson, SCREENSHOTS, startServe, type Browser, type ServeProcess } from './helpers.js';

const TOOL = 'mcp__everything__trigger-elicitation-request';
let model: ScriptedServer;
let serve: ServeProcess;
let browser: Browser;

function script(req: MessagesRequest): ScriptedResponse {
  if (hasToolResult(req)) return { kind: 'message', blocks: [{ type: 'text', text: 'Thanks for answering.' }] };
  return { kind: 'message', blocks: [{ type: 'tool_use', name: TOOL, input: {} }] };
}

beforeAll(async () => {
  assertBuilt();
  mkdirSync(SCREENSHOTS, { recursive: true });
  model = await startScriptedServer({ script });
  const mcpConfig = JSON.stringify({ mcpServers: { everything: everythingStdio() } });
  serve = await startServe(['--port', '0', '--mcp-config', mcpConfig, '--allowedTools', 'mcp__everything'], { ...makeSandbox(), baseURL: model.baseURL });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  await model?.close();
  removeSandboxes();
});

async function askInNewSession(): Promise<{ page: Page & { errors: string[] }; sessionId: string }> {
  const { json } = await postJson(`${serve.base}/api/sessions`, {});
  const sessionId = json.session.sessionId as string;
  const page = await browser.newPage();
  await page.goto(`${serve.url}?session=${sessionId}`);
  await page.waitForSelector('body[data-ready="true"]');
  // The session was built with warnings (server-everything's tools we cannot offer): shown, but nothing runs.
  await page.locator('.notice.warning').first().waitFor();
  expect(await page.locator('#status').textContent()).toBe('idle');
  expect(await page.locator('#stop').isDisabled()).toBe(true);
  await page.locator('#prompt').fill('ask me for my details');
  await page.locator('#prompt').press('Enter');
  await page.locator('.question[data-server="everything"]').waitFor();
  // The picker names the running session by its prompt.
  await page.locator('#sessions option', { hasText: '● ask me for my details' }).waitFor({ state: 'attached' });
  return { page, sessionId };
}

const toolCard = (page: Page) => page.locator(`.tool[data-tool-name="${TOOL}"]`);

describe('MCP elicitation on the serve page', () => {
  it('the form: a wrong answer is refused in the page, Accept sends the values to the server', { timeout: 90_000 }, async () => {
    const { page } = await askInNewSession();
    const form = page.locator('.question');
    expect(await form.locator('.what').textContent()).toBe('everything asks: Please provide inputs for the following fields:');
    // The tool is running while its server waits for the answer.
    expect(await toolCard(page).getAttribute('data-status')).toBe('running');
    await form.locator('input[name="field-name"]').fill('Ada Lovelace');
    await form.locator('input[name="field-integer"]').fill('500');
    await form.locator('button[data-action="accept"]').click();
    // Checked in the page: the reason shows, the form stays, nothing was sent.
    const integerReason = form.locator('[data-reason-for="integer"]');
    expect(await integerReason.textContent()).toBe('at most 100');
    expect(await form.count()).toBe(1);
    // A field showing a reason is checked again as it changes: another wrong value, its reason; a right one, none.
    await form.locator('input[name="field-integer"]').fill('0');
    expect(await integerReason.textContent()).toBe('at least 1');
    await form.locator('input[name="field-integer"]').fill('7');
    expect(await integerReason.textContent()).toBe('');
    await form.locator('input[name="field-check"]').check();
    // Titled enums show their titles (oneOf / anyOf titles, legacy enumNames) and send their values.
    const optionTexts = (field: string) => form.locator(`select[name="field-${field}"] option`).allTextContents();
    expect(await optionTexts('titledSingleSelectEnum')).toEqual(['(none)', 'Superman', 'Green Lantern', 'Wonder Woman']);
    expect(await optionTexts('legacyTitledEnum')).toEqual(['(none)', 'Cats', 'Dogs', 'Birds', 'Fish', 'Reptiles']);
    expect(await optionTexts('untitledSingleSelectEnum')).toContain('Chandler');
    await form.locator('select[name="field-titledSingleSelectEnum"]').selectOption({ label: 'Wonder Woman' });
    await form.locator('select[name="field-legacyTitledEnum"]').selectOption({ label: 'Dogs' });
    const fish = form.locator('[data-field="titledMultipleSelectEnum"] label');
    expect(await fish.allTextContents()).toEqual([' Tuna', ' Salmon', ' Trout']);
    await fish.filter({ hasText: 'Trout' }).locator('input').check();
    await page.screenshot({ path: join(SCREENSHOTS, '11-elicitation-form.png'), fullPage: true });
    await form.locator('button[data-action="accept"]').click();
    await page.locator(`.tool[data-tool-name="${TOOL}"][data-status="done"]`).waitFor();
    const result = (await toolCard(page).locator('.result').textContent())!;
    expect(result).toContain('Name: Ada Lovelace');
    expect(result).toContain('Favorite Integer: 7');
    expect(result).toContain('Agreed to terms: true');
    // The server's echo of what it received: the values, not the titles.
    const raw = JSON.parse(result.slice(result.indexOf('Raw result: ') + 'Raw result: '.length)) as { content: Record<string, unknown> };
    expect(raw.content).toMatchObject({ titledSingleSelectEnum: 'hero-3', legacyTitledEnum: 'pet-2', titledMultipleSelectEnum: ['fish-1', 'fish-3'], integer: 7 });
    await page.getByText('Thanks for answering.').waitFor();
    expect(await page.locator('.question').count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, '12-elicitation-answered.png') });
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('Decline tells the server the user declined; the form goes', { timeout: 90_000 }, async () => {
    const { page } = await askInNewSession();
    await page.locator('.question button[data-action="decline"]').click();
    await page.locator(`.tool[data-tool-name="${TOOL}"][data-status="done"]`).waitFor();
    expect(await toolCard(page).locator('.result').textContent()).toContain('User declined to provide the requested information');
    expect(await page.locator('.question').count()).toBe(0);
    expect(page.errors).toEqual([]);
    await page.close();
  });

  it('the commands route: an unknown question is 404, a malformed answer 400, both JSON', async () => {
    const { json } = await postJson(`${serve.base}/api/sessions`, {});
    const commands = `${serve.base}/api/sessions/${json.session.sessionId}/commands`;
    const unknown = await postJson(commands, { type: 'elicitation', requestId: 'elicit-999', action: 'accept', content: { name: 'x' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain("no MCP server question 'elicit-999' is waiting");
    const bad = await postJson(commands, { type: 'elicitation', requestId: 'elicit-1', action: 'maybe' });
    expect(bad.status).toBe(400);
    const nested = await postJson(commands, { type: 'elicitation', requestId: 'elicit-1', action: 'accept', content: { name: { deep: true } } });
    expect(nested.status).toBe(400);
  });
});
