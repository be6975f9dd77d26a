/**
 * `outputFormat: { type: 'json_schema' }` through the real Agent SDK: the engine offers a
 * StructuredOutput tool with the schema, the result carries `structured_output`, an invalid
 * answer is retried once, and a second invalid one is `error_max_structured_output_retries`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertBuilt, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const schema = { type: 'object', properties: { city: { type: 'string' }, population: { type: 'integer' } }, required: ['city', 'population'], additionalProperties: false };
const answerWith = (input: Record<string, unknown>) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name: 'StructuredOutput', input }] });

describe('structured output', () => {
  test('a valid StructuredOutput call ends the turn; the result carries structured_output', async () => {
    const { messages, server } = await runQuery([answerWith({ city: 'Lyon', population: 520000 })], 'Largest city of the Rhône?', {
      outputFormat: { type: 'json_schema', schema },
    });
    const offered = server.requests[0]?.body?.tools?.find((t) => (t as { name: string }).name === 'StructuredOutput') as { input_schema?: unknown } | undefined;
    expect(offered?.input_schema).toMatchObject({ type: 'object', required: ['city', 'population'] });
    expect(JSON.stringify(server.requests[0]?.body?.system)).toContain('StructuredOutput');
    expect(server.requests).toHaveLength(1);
    expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', structured_output: { city: 'Lyon', population: 520000 } });
  });

  test('an invalid answer gets the schema problems back and is retried; the second try counts', async () => {
    const { messages, server } = await runQuery(
      [answerWith({ city: 'Lyon', population: 'many' }), answerWith({ city: 'Lyon', population: 520000 })],
      'Largest city of the Rhône?',
      { outputFormat: { type: 'json_schema', schema } },
    );
    expect(server.requests).toHaveLength(2);
    const feedback = JSON.stringify(server.requests[1]?.body?.messages.at(-1));
    expect(feedback).toContain('population');
    expect(feedback).toContain('"is_error":true');
    expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', structured_output: { city: 'Lyon', population: 520000 } });
  });

  test('two invalid answers: error_max_structured_output_retries, no structured_output', async () => {
    const { messages, error } = await runQuery(
      [answerWith({ city: 1, population: 2 }), answerWith({ town: 'Lyon' })],
      'Largest city of the Rhône?',
      { outputFormat: { type: 'json_schema', schema } },
    );
    const [result] = resultOf(messages);
    expect(result).toMatchObject({ subtype: 'error_max_structured_output_retries', is_error: true });
    expect(result).not.toHaveProperty('structured_output');
    expect(error?.message).toMatch(/Structured output failed/);
  });

  test('ending without calling the tool: reminded once, then it answers', async () => {
    const { messages, server } = await runQuery(
      [{ kind: 'message', blocks: [{ type: 'text', text: 'Lyon, about half a million.' }] }, answerWith({ city: 'Lyon', population: 520000 })],
      'Largest city of the Rhône?',
      { outputFormat: { type: 'json_schema', schema } },
    );
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body?.messages.at(-1))).toContain('StructuredOutput');
    expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', structured_output: { city: 'Lyon', population: 520000 } });
  });
});
