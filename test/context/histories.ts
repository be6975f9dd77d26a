/** Builders and a fast-check arbitrary of valid histories for the context tests. */
import fc from 'fast-check';
import type { ContentBlock, MessageParam } from '../../src/protocol/content.js';

export const user = (text: string): MessageParam => ({ role: 'user', content: text });
export const assistantText = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });
export const toolCall = (id: string, name = 'Read', input: Record<string, unknown> = { file_path: '/a' }, thinking?: string): MessageParam => ({
  role: 'assistant',
  content: [
    ...(thinking ? [{ type: 'thinking' as const, thinking, signature: `sig-${id}` }] : []),
    { type: 'tool_use', id, name, input },
  ],
});
export const toolResult = (id: string, content: string, isError = false): MessageParam => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }],
});

/** `rounds` tool rounds after a prompt, each with a result of `resultChars` characters. */
export function toolTurn(prefix: string, rounds: number, resultChars = 100): MessageParam[] {
  const out: MessageParam[] = [user(`${prefix}: please do the work`)];
  for (let r = 0; r < rounds; r++) {
    out.push(toolCall(`${prefix}_t${r}`), toolResult(`${prefix}_t${r}`, 'x'.repeat(resultChars)));
  }
  return out;
}

export function requestOf(messages: readonly MessageParam[]) {
  return { model: 'test-model', max_tokens: 1000, messages };
}

/** Recursively freezes a value so any mutation throws (ESM modules are strict). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Random valid histories: turns of text, thinking and tool_use/tool_result pairs, ending with a
// user message (the state right before a model call).
// ---------------------------------------------------------------------------------------------

interface RoundShape {
  readonly thinking: boolean;
  readonly text: string | undefined;
  readonly tools: number;
  readonly resultChars: readonly number[];
  readonly error: boolean;
}
interface TurnShape {
  readonly prompt: string;
  readonly promptAsBlocks: boolean;
  readonly rounds: readonly RoundShape[];
  readonly finalThinking: boolean;
}

const text = fc.string({ minLength: 1, maxLength: 30 }).map((s) => (s.trim() === '' ? 'x' : s));
const roundShape: fc.Arbitrary<RoundShape> = fc.record({
  thinking: fc.boolean(),
  text: fc.option(text, { nil: undefined }),
  tools: fc.integer({ min: 1, max: 3 }),
  resultChars: fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 3, maxLength: 3 }),
  error: fc.boolean(),
});
const turnShape: fc.Arbitrary<TurnShape> = fc.record({
  prompt: text,
  promptAsBlocks: fc.boolean(),
  rounds: fc.array(roundShape, { maxLength: 4 }),
  finalThinking: fc.boolean(),
});

export const historyArbitrary: fc.Arbitrary<MessageParam[]> = fc
  .tuple(fc.array(turnShape, { minLength: 1, maxLength: 8 }), fc.boolean())
  .map(([turns, endAfterTools]) => buildHistory(turns, endAfterTools));

function buildHistory(turns: readonly TurnShape[], endAfterTools: boolean): MessageParam[] {
  const messages: MessageParam[] = [];
  let id = 0;
  turns.forEach((turn, t) => {
    const last = t === turns.length - 1;
    messages.push({
      role: 'user',
      content: turn.promptAsBlocks ? [{ type: 'text', text: turn.prompt }] : turn.prompt,
    });
    // The last turn ends at its prompt, or after its tool rounds (a tool-result message).
    const rounds = last && !endAfterTools ? [] : turn.rounds;
    for (const round of rounds) {
      const blocks: ContentBlock[] = [];
      if (round.thinking) blocks.push({ type: 'thinking', thinking: `reasoning ${id}`, signature: `sig${id}` });
      if (round.text !== undefined) blocks.push({ type: 'text', text: round.text });
      const ids: string[] = [];
      for (let k = 0; k < round.tools; k++) {
        const toolId = `toolu_${id++}`;
        ids.push(toolId);
        blocks.push({ type: 'tool_use', id: toolId, name: k % 2 ? 'Grep' : 'Read', input: { q: toolId } });
      }
      messages.push({ role: 'assistant', content: blocks });
      messages.push({
        role: 'user',
        content: ids.map((toolId, k) => ({
          type: 'tool_result' as const,
          tool_use_id: toolId,
          content: 'r'.repeat(round.resultChars[k] ?? 10),
          ...(round.error && k === 0 ? { is_error: true } : {}),
        })),
      });
    }
    if (!last) {
      const blocks: ContentBlock[] = [];
      if (turn.finalThinking) blocks.push({ type: 'thinking', thinking: `final ${id}`, signature: `sig${id++}` });
      blocks.push({ type: 'text', text: `answer to ${turn.prompt}` });
      messages.push({ role: 'assistant', content: blocks });
    }
  });
  return messages;
}
