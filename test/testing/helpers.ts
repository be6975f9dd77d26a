/** Helpers for the scripted-server tests: real HTTP on loopback, parsed with eventsource-parser. */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterEach } from 'vitest';
import { startScriptedServer, type ScriptedServer, type ScriptedServerOptions } from '../../src/testing/index.js';

/**
 * For a test file's top level: returns `start(options)`, which starts a scripted server that is
 * closed after the test (one server per test).
 */
export function useScriptedServer(): (options: ScriptedServerOptions) => Promise<ScriptedServer> {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (options) => (server = await startScriptedServer(options));
}

export const validBody = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: 'claude-test',
  max_tokens: 1024,
  stream: true,
  messages: [{ role: 'user', content: 'hello' }],
  ...extra,
});

export function post(baseURL: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${baseURL}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test-secret', 'anthropic-version': '2023-06-01' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

/** Parses an SSE body into messages, checking each `event:` name matches its data's `type`. */
export function parseSSE(text: string): { event: string | undefined; data: unknown }[] {
  const out: { event: string | undefined; data: unknown }[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => out.push({ event: message.event, data: JSON.parse(message.data) }),
  });
  parser.feed(text);
  return out;
}

/** Reads a streamed body, noting when (ms since `start`) each chunk arrived. */
export async function readTimed(res: Response, start: number): Promise<{ text: string; chunks: { at: number; text: string }[] }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const chunks: { at: number; text: string }[] = [];
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const piece = decoder.decode(value, { stream: true });
    chunks.push({ at: Date.now() - start, text: piece });
    text += piece;
  }
  return { text, chunks };
}

export interface ErrorBodyShape {
  type: string;
  error: { type: string; message: string };
  request_id?: string;
}
export const readError = async (res: Response): Promise<ErrorBodyShape> => (await res.json()) as ErrorBodyShape;
export const readMessage = async (res: Response): Promise<import('../../src/protocol/content.js').AssistantMessage> =>
  (await res.json()) as import('../../src/protocol/content.js').AssistantMessage;

/** Reads a body to its end or its failure, keeping what arrived before a failure. */
export async function readUntilEnd(res: Response): Promise<{ text: string; error: unknown }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, error: undefined };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

/** Reads until `enough(textSoFar)` holds, then returns without consuming the rest. */
export async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  enough: (text: string) => boolean,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  while (!enough(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`body ended before the condition held; got: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

/** Reads what is left of a body whose start `readUntil` consumed, to its end. */
export async function readRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}
