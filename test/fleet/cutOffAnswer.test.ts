/** Which trailing answer a retried job asks again: only one the model never finished (stop reason null). */
import { describe, expect, it } from 'vitest';
import { lastCutOffAnswer } from '../../src/fleet/queue/cutOffAnswer.js';
import type { SessionRecord } from '../../src/session/records.js';
import { ChainBuilder, text } from '../session/helpers.js';

/** The builder's assistant record with the stop reason a run stored. */
const withStop = (record: SessionRecord, stopReason: string | null | undefined): SessionRecord => {
  if (record.type !== 'assistant') throw new Error('not an assistant record');
  const { stopReason: _given, ...rest } = record;
  return stopReason === undefined ? rest : ({ ...rest, stopReason } as SessionRecord);
};
const chain = (build: (c: ChainBuilder) => void): SessionRecord[] => {
  const c = new ChainBuilder('s');
  build(c);
  return c.records;
};

describe('lastCutOffAnswer', () => {
  it('names an answer cut off mid-stream (stop reason null) after the prompt', () => {
    const records = chain((c) => {
      c.user('do it');
      c.assistant([text('Half an ans')]);
    });
    records[1] = withStop(records[1]!, null);
    expect(lastCutOffAnswer(records)?.uuid).toBe(records[1]!.uuid);
  });

  it.each([
    ['a finished answer (end_turn): its result was lost, not asked again', 'end_turn'],
    ['an answer cut off by max_tokens is finished too', 'max_tokens'],
    ['no stop reason recorded at all proves nothing', undefined],
  ])('none for %s', (_what, stopReason) => {
    const records = chain((c) => {
      c.user('do it');
      c.assistant([text('An answer')]);
    });
    records[1] = withStop(records[1]!, stopReason);
    expect(lastCutOffAnswer(records)).toBeUndefined();
  });

  it('none when the history ends with a user message (the prompt, or results of a cut-off tool turn)', () => {
    expect(lastCutOffAnswer(chain((c) => c.user('do it')))).toBeUndefined();
    expect(lastCutOffAnswer([])).toBeUndefined();
  });

  it('a tombstoned cut-off answer is out of the view: the one before it decides', () => {
    const records = chain((c) => {
      c.user('first');
      c.assistant([text('First answer.')]);
      c.user('second');
      c.assistant([text('Half')]);
    });
    records[3] = withStop(records[3]!, null);
    const c = new ChainBuilder('s');
    c.records.push(...records);
    c.tombstone([records[3]!.uuid]);
    // The view now ends with the user prompt 'second': nothing to retract twice.
    expect(lastCutOffAnswer(c.records)).toBeUndefined();
  });
});
