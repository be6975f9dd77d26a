/**
 * The scripted server parses each body reusing the previous request of its conversation
 * (`requestBodyParser.ts`) and caches schema verdicts per message: what it records, validates and
 * bills must still be exactly what a plain `JSON.parse` + `validateMessagesRequest` give.
 */
import { describe, expect, it } from 'vitest';
import { estimateInputTokens, validateMessagesRequest, type ScriptedMessage } from '../../src/testing/index.js';
import { post, useScriptedServer } from './helpers.js';

const start = useScriptedServer();
const reply: ScriptedMessage = { kind: 'message', blocks: [{ type: 'text', text: 'ok' }] };

function conversation(id: number, turns: number, lastFix?: (messages: Record<string, unknown>[]) => void): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [{ role: 'user', content: `conversation ${id} — ünïcödé 😀` }];
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${id}_${t}`, name: 'fetch', input: { n: t } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${id}_${t}`, content: `résultat ${t} "${'x'.repeat(t)}"` }] });
  }
  lastFix?.(messages);
  return { model: 'claude-test', max_tokens: 1024, messages, tools: [{ name: 'fetch', input_schema: { type: 'object' } }] };
}

describe('startScriptedServer: incremental parsing', () => {
  it('records, validates and bills every body as a full parse would, valid or not, conversations interleaved', async () => {
    const s = await start({ script: () => reply, validate: true });
    const bodies: string[] = [];
    for (let turn = 0; turn < 12; turn++) {
      for (const id of [1, 2]) {
        bodies.push(JSON.stringify(conversation(id, turn)));
        // An invalid body of the same conversation: an unanswered tool_use, then a bad block type in a reused message.
        if (turn % 3 === 1) bodies.push(JSON.stringify(conversation(id, turn, (m) => m.pop())));
        if (turn % 3 === 2) bodies.push(JSON.stringify(conversation(id, turn, (m) => (m[1] = { role: 'assistant', content: [{ type: 'bogus' }] }))));
        // The same body with other whitespace, and one that is not JSON.
        if (turn % 4 === 0) bodies.push(JSON.stringify(conversation(id, turn), null, 1));
        if (turn % 4 === 3) bodies.push(JSON.stringify(conversation(id, turn)).slice(0, -3));
      }
    }
    const statuses: number[] = [];
    const inputTokens: (number | undefined)[] = [];
    for (const body of bodies) {
      const res = await post(s.baseURL, body, {});
      statuses.push(res.status);
      const json = (await res.json()) as { usage?: { input_tokens: number } };
      inputTokens.push(json.usage?.input_tokens);
    }
    // Bodies are sent as given (post() does not re-stringify a string); `stream` is absent, so replies are JSON.
    expect(s.requests).toHaveLength(bodies.length);
    s.requests.forEach((record, i) => {
      expect(record.rawBody).toBe(bodies[i]);
      let parsed: unknown;
      let error: string | undefined;
      try {
        parsed = JSON.parse(bodies[i]!);
      } catch (e) {
        error = `request body is not valid JSON: ${(e as Error).message}`;
      }
      if (error !== undefined) {
        expect(record.body).toBeUndefined();
        expect(record.validationErrors).toEqual([error]);
        expect(statuses[i]).toBe(400);
        return;
      }
      expect(record.body).toStrictEqual(parsed);
      expect(record.validationErrors).toEqual(validateMessagesRequest(parsed));
      expect(statuses[i]).toBe(record.validationErrors.length === 0 ? 200 : 400);
      if (statuses[i] === 200) expect(inputTokens[i]).toBe(estimateInputTokens(bodies[i]!));
    });
    expect(statuses.filter((st) => st === 400).length).toBeGreaterThan(10);
    // Reused: the first message of consecutive bodies of conversation 1 is one (frozen) object.
    const firsts = s.requests.filter((r) => r.rawBody.includes('conversation 1') && r.body !== undefined).map((r) => r.body!.messages[0]);
    expect(firsts.at(-1)).toBe(firsts.at(-2));
    expect(Object.isFrozen(firsts.at(-1))).toBe(true);
  });
});
