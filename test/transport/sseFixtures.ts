/** Golden SSE streams for the transport tests, written the way the Messages API frames them. */

export function sseEvent(data: unknown, event?: string): string {
  const name = event ?? (data as { type: string }).type;
  return `event: ${name}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export const messageStart = {
  type: 'message_start',
  message: {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 1 },
  },
};

/** Every event kind, multi-byte text (2-, 3- and 4-byte UTF-8), a comment and a retry field. */
export const goldenEvents: readonly unknown[] = [
  messageStart,
  { type: 'ping' },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me think…' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'c2ln' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'héllo wörld ' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: '€ 🌍 日本' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"path":' } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"/tmp/ä"}' } },
  { type: 'content_block_stop', index: 2 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 42 } },
  { type: 'message_stop' },
];

export const goldenText: string =
  ': a comment the decoder ignores\nretry: 3000\n\n' + goldenEvents.map((e) => sseEvent(e)).join('');

export const goldenBytes: Uint8Array = new TextEncoder().encode(goldenText);
