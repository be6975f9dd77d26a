/**
 * What a person does in the browser during a sign-in, as plain HTTP requests: open the
 * authorization URL (the fixture's consent page), follow its Approve link, and go where the
 * authorization server redirects (our loopback callback). Returns the callback's page.
 */
import { expect } from 'vitest';

export async function approveByHttp(authorizationUrl: string): Promise<{ status: number; text: string }> {
  const consent = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(consent.status).toBe(200);
  const href = /id="approve" href="([^"]+)"/.exec(await consent.text())?.[1];
  expect(href).toBeDefined();
  const approved = await fetch(new URL(href!, authorizationUrl), { redirect: 'manual' });
  expect(approved.status).toBe(302);
  const callback = await fetch(approved.headers.get('location')!, { redirect: 'manual' });
  return { status: callback.status, text: await callback.text() };
}
