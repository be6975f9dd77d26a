import { describe, expect, it } from 'vitest';
import { validateMessagesRequest } from '../../src/testing/index.js';

const base = { model: 'claude-test', max_tokens: 100 };
const req = (messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({ ...base, messages, ...extra });
const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown) => ({ role: 'assistant', content });
const toolUse = (id: string, input: unknown = {}) => ({ type: 'tool_use', id, name: 'Read', input });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });
const text = (t: string) => ({ type: 'text', text: t });
const tool = (name: string) => ({ name, input_schema: { type: 'object' } });

describe('validateMessagesRequest: valid requests', () => {
  const valid: [string, unknown][] = [
    ['one user message', req([user('hi')])],
    ['a tool round', req([user('hi'), assistant([text('reading'), toolUse('t1', { path: 'a' })]), user([toolResult('t1'), text('go on')])])],
    ['two parallel tool uses answered in any order', req([user('hi'), assistant([toolUse('t1'), toolUse('t2')]), user([toolResult('t2'), toolResult('t1')])])],
    ['a final assistant prefill', req([user('hi'), assistant('Sure,')])],
    ['an empty final assistant prefill', req([user('hi'), assistant([])])],
    ['thinking with signature when enabled', req([user('hi'), assistant([{ type: 'thinking', thinking: 'x', signature: 's' }, toolUse('t1')]), user([toolResult('t1')])], { max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 } })],
    ['four cache breakpoints', req([user([{ ...text('a'), cache_control: { type: 'ephemeral' } }])], { system: [{ ...text('s'), cache_control: { type: 'ephemeral' } }], tools: [{ ...tool('A'), cache_control: { type: 'ephemeral' } }, { ...tool('B'), cache_control: { type: 'ephemeral' } }] })],
    ['old thinking without thinking enabled (the API drops it)', req([user('hi'), assistant([{ type: 'thinking', thinking: 'x', signature: 's' }, text('a')]), user('more')])],
    ['tools with unique names and tool_choice naming one', req([user('hi')], { tools: [tool('Read'), tool('Bash')], tool_choice: { type: 'tool', name: 'Bash' } })],
    ['system as blocks', req([user('hi')], { system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }] })],
  ];
  it.each(valid)('%s', (_name, body) => {
    expect(validateMessagesRequest(body)).toEqual([]);
  });
});

describe('validateMessagesRequest: invalid requests', () => {
  const invalid: [string, unknown, RegExp][] = [
    ['a body that is not an object', [1, 2], /^request body must be a JSON object, got an array$/],
    ['no model (schema)', { max_tokens: 1, messages: [user('hi')] }, /^model: /],
    ['no messages', req([]), /^messages: at least one message is required$/],
    ['first message from the assistant', req([assistant('hi'), user('x')]), /^messages\[0\]: the first message must have role "user", got the string "assistant"$/],
    ['two user messages in a row', req([user('a'), user('b')]), /^messages\[1\]: two consecutive "user" messages \(messages\[0\] and messages\[1\]\); roles must alternate/],
    ['two assistant messages in a row', req([user('a'), assistant('b'), assistant('c')]), /^messages\[2\]: two consecutive "assistant" messages/],
    ['a tool_use never answered', req([user('a'), assistant([toolUse('t1')]), user('next')]), /^messages\[2\]: no tool_result for tool_use id "t1" of messages\[1\]/],
    ['a tool_use in the last message', req([user('a'), assistant([toolUse('t1')])]), /^messages\[1\]: tool_use id "t1" has no tool_result \(there is no next message\)/],
    ['one of two tool_uses unanswered', req([user('a'), assistant([toolUse('t1'), toolUse('t2')]), user([toolResult('t1')])]), /^messages\[2\]: no tool_result for tool_use id "t2"/],
    ['tool_result after text', req([user('a'), assistant([toolUse('t1')]), user([text('x'), toolResult('t1')])]), /^messages\[2\]\.content\[1\]: tool_result for "t1" comes after other content; tool_result blocks must come first/],
    ['a tool_result without a tool_use', req([user('a'), assistant('b'), user([toolResult('t9')])]), /^messages\[2\]\.content\[0\]: tool_result for tool_use id "t9" has no matching tool_use in the previous assistant message \(not in messages\[1\]\)$/],
    ['a tool_result in the first message', req([user([toolResult('t9')])]), /there is no previous assistant message/],
    ['a duplicate tool_result', req([user('a'), assistant([toolUse('t1')]), user([toolResult('t1'), toolResult('t1')])]), /^messages\[2\]\.content\[1\]: duplicate tool_result for tool_use id "t1"$/],
    ['a duplicate tool_use id across turns', req([user('a'), assistant([toolUse('t1')]), user([toolResult('t1')]), assistant([toolUse('t1')]), user([toolResult('t1')])]), /^messages\[3\]\.content\[0\]: duplicate tool_use id "t1" \(first used in messages\[1\]\)$/],
    ['an array tool input', req([user('a'), assistant([toolUse('t1', [1])]), user([toolResult('t1')])]), /^messages\[1\]\.content\[0\]: tool_use input must be a JSON object, got an array$/],
    ['a string tool input', req([user('a'), assistant([toolUse('t1', '{"a":1}')]), user([toolResult('t1')])]), /^messages\[1\]\.content\[0\]: tool_use input must be a JSON object, got the string/],
    ['a null tool input', req([user('a'), assistant([toolUse('t1', null)]), user([toolResult('t1')])]), /got null$/],
    ['final assistant message ending in thinking', req([user('a'), assistant([text('x'), { type: 'thinking', thinking: 't', signature: 's' }])]), /^messages\[1\]: the final assistant message cannot end with a thinking block$/],
    ['thinking without signature when enabled', req([user('a'), assistant([{ type: 'thinking', thinking: 't', signature: '' }, text('x')]), user('b')], { thinking: { type: 'enabled', budget_tokens: 1024 } }), /^messages\[1\]\.content\[0\]: thinking block has no signature/],
    ['thinking in a user message', req([user([{ type: 'thinking', thinking: 't', signature: 's' }])]), /^messages\[0\]\.content\[0\]: thinking blocks may only appear in assistant messages$/],
    ['tool_use in a user message', req([user([toolUse('t1')])]), /^messages\[0\]\.content\[0\]: tool_use blocks may only appear in assistant messages$/],
    ['empty user content', req([user([])]), /^messages\[0\]: content must not be empty/],
    ['an empty text block', req([user([text('')])]), /^messages\[0\]\.content\[0\]: text blocks must not be empty$/],
    ['duplicate tool names', req([user('a')], { tools: [tool('Read'), tool('Read')] }), /^tools\[1\]: duplicate tool name "Read" \(also tools\[0\]\)/],
    ['tool_choice naming an unknown tool', req([user('a')], { tools: [tool('Read')], tool_choice: { type: 'tool', name: 'Bash' } }), /^tool_choice: names tool "Bash", which is not in tools$/],
    ['a thinking budget below 1024', req([user('a')], { max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 500 } }), /^thinking\.budget_tokens: must be at least 1024, got 500$/],
    ['max_tokens not above the thinking budget', req([user('a')], { max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 2000 } }), /^max_tokens: must be greater than thinking\.budget_tokens \(2000 <= 2000\)$/],
    ['five cache breakpoints', req([user([{ ...text('a'), cache_control: { type: 'ephemeral' } }, { ...text('b'), cache_control: { type: 'ephemeral' } }])], { system: [{ ...text('s'), cache_control: { type: 'ephemeral' } }], tools: [{ ...tool('A'), cache_control: { type: 'ephemeral' } }, { ...tool('B'), cache_control: { type: 'ephemeral' } }] }), /^request: 5 blocks have cache_control \(system\[0\], tools\[0\], tools\[1\], messages\[0\]\.content\[0\], messages\[0\]\.content\[1\]\); at most 4 are allowed$/],
    ['a bad role (schema)', req([{ role: 'system', content: 'x' }]), /^messages\[0\]\.role: /],
  ];
  it.each(invalid)('%s', (_name, body, expected) => {
    const errors = validateMessagesRequest(body);
    expect(errors.some((e) => expected.test(e)), `errors were:\n${errors.join('\n')}`).toBe(true);
  });

  it('reports a non-object tool input once, in its own words (not also as a schema error)', () => {
    const errors = validateMessagesRequest(req([user('a'), assistant([toolUse('t1', [1])]), user([toolResult('t1')])]));
    expect(errors).toEqual(['messages[1].content[0]: tool_use input must be a JSON object, got an array']);
  });

  it('reports every problem, not just the first', () => {
    const errors = validateMessagesRequest(req([assistant('a'), assistant([toolUse('t1')])]));
    expect(errors).toHaveLength(3);
  });
});

describe('validateMessagesRequest: schema messages point at the field', () => {
  it('names the block field inside a content union', () => {
    const errors = validateMessagesRequest(req([user([{ type: 'texx' }])]));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^messages\[0\]\.content\[0\]\.type: /);
  });
});
