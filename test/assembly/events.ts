/** Small builders for stream events, shared by the assembly tests. */
import type { StopReason, Usage } from '../../src/protocol/content.js';
import type { BlockStart, Delta, StreamEvent } from '../../src/protocol/events.js';

export const messageStart = (usage: Usage = { input_tokens: 10, output_tokens: 1 }, id = 'msg_1'): StreamEvent => ({
  type: 'message_start',
  message: {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  },
});
export const blockStart = (index: number, content_block: BlockStart): StreamEvent => ({
  type: 'content_block_start',
  index,
  content_block,
});
export const textStart = (index: number) => blockStart(index, { type: 'text', text: '' });
export const thinkingStart = (index: number) => blockStart(index, { type: 'thinking', thinking: '', signature: '' });
export const toolStart = (index: number, id = `toolu_${index}`, name = 'Read') =>
  blockStart(index, { type: 'tool_use', id, name, input: {} });
export const redactedStart = (index: number, data = 'opaque') => blockStart(index, { type: 'redacted_thinking', data });
export const delta = (index: number, d: Delta): StreamEvent => ({ type: 'content_block_delta', index, delta: d });
export const text = (index: number, t: string) => delta(index, { type: 'text_delta', text: t });
export const thinking = (index: number, t: string) => delta(index, { type: 'thinking_delta', thinking: t });
export const signature = (index: number, s: string) => delta(index, { type: 'signature_delta', signature: s });
export const json = (index: number, p: string) => delta(index, { type: 'input_json_delta', partial_json: p });
export const citation = (index: number, c: unknown) => delta(index, { type: 'citations_delta', citation: c });
export const blockStop = (index: number): StreamEvent => ({ type: 'content_block_stop', index });
export const messageDelta = (
  stop_reason: StopReason | null,
  usage: Usage = { output_tokens: 42 },
  stop_sequence: string | null = null,
): StreamEvent => ({ type: 'message_delta', delta: { stop_reason, stop_sequence }, usage });
export const messageStop: StreamEvent = { type: 'message_stop' };
export const ping: StreamEvent = { type: 'ping' };
