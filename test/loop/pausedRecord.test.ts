/** The pure pair under "one transcript record per assistant message" across pause_turn. */
import { describe, expect, it } from 'vitest';
import { holdPaused, joinPaused } from '../../src/loop/pausedRecord.js';
import type { TranscriptRecord } from '../../src/loop/seams.js';
import type { LoopState, TransitionReason } from '../../src/loop/types.js';
import type { AssistantMessage } from '../../src/protocol/content.js';
import { loopStateOf } from './helpers.js';

const stateAfter = (reason: TransitionReason | undefined, lastMessageUuid: string): LoopState =>
  loopStateOf({ lastMessageUuid, depth: 1, transition: reason ? { reason } : undefined, model: 'm' });
const response = (id: string, text: string, usage: AssistantMessage['usage']): AssistantMessage => ({
  id,
  type: 'message',
  role: 'assistant',
  model: 'm',
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
  usage,
});
const assistant = (uuid: string, parentUuid: string | undefined, message: AssistantMessage): TranscriptRecord => ({
  type: 'assistant', chainId: 'c', depth: 0, timestamp: 1, uuid, parentUuid, message,
});
const user = (uuid: string, parentUuid: string | undefined): TranscriptRecord => ({
  type: 'user', chainId: 'c', depth: 0, timestamp: 1, uuid, parentUuid, message: { role: 'user', content: 'hi' }, reason: 'prompt', isMeta: false,
});

const prompt = user('u1', undefined);
const paused = assistant('a1', 'u1', { ...response('msg_1', 'searching', { input_tokens: 10, output_tokens: 2 }), stop_reason: 'pause_turn' });
const continuation = assistant('a2', 'a1', response('msg_2', 'found it', { input_tokens: 12, output_tokens: 3, cache_read_input_tokens: 5 }));

describe('holdPaused', () => {
  it("holds the paused record back in a pause continuation's preflight, writes the rest", () => {
    expect(holdPaused(stateAfter('pause_turn_continuation', 'a1'), [prompt, paused])).toEqual({ write: [prompt], held: [paused] });
  });
  it('holds nothing after any other transition, or when the last record is not the history end', () => {
    expect(holdPaused(stateAfter('next_turn', 'a1'), [prompt, paused])).toEqual({ write: [prompt, paused], held: [] });
    expect(holdPaused(stateAfter('pause_turn_continuation', 'other'), [prompt, paused]).held).toEqual([]);
    expect(holdPaused(stateAfter('pause_turn_continuation', 'u1'), [prompt])).toEqual({ write: [prompt], held: [] });
    expect(holdPaused(stateAfter('pause_turn_continuation', 'a1'), [])).toEqual({ write: [], held: [] });
  });
});

describe('joinPaused', () => {
  it("joins a paused record and its continuation: the continuation's uuid and response, the paused parent, both contents and usages", () => {
    const [first, joined, ...rest] = joinPaused([prompt, paused, continuation]);
    expect(first).toBe(prompt);
    expect(rest).toEqual([]);
    expect(joined).toMatchObject({ type: 'assistant', uuid: 'a2', parentUuid: 'u1' });
    const message = joined!.type === 'assistant' ? joined!.message : undefined;
    expect(message?.id).toBe('msg_2');
    expect(message?.content).toEqual([{ type: 'text', text: 'searching' }, { type: 'text', text: 'found it' }]);
    expect(message?.usage).toEqual({ input_tokens: 22, output_tokens: 5, cache_read_input_tokens: 5 });
  });
  it('chains several joins; leaves records that do not follow each other alone', () => {
    const third = assistant('a3', 'a2', response('msg_3', 'and more', { input_tokens: 1, output_tokens: 1 }));
    const joined = joinPaused([paused, continuation, third]);
    expect(joined).toHaveLength(1);
    expect(joined[0]).toMatchObject({ uuid: 'a3', parentUuid: 'u1' });
    const unrelated = assistant('a9', 'u1', response('msg_9', 'x', {}));
    expect(joinPaused([paused, unrelated])).toEqual([paused, unrelated]);
    expect(joinPaused([])).toEqual([]);
    expect(joinPaused([prompt, paused, user('u2', 'a1')])).toHaveLength(3);
  });
});
