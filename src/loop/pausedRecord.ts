/**
 * One transcript record per assistant message, even across `pause_turn` (issue 16). The live
 * history joins a paused turn's continuation to the paused message (`appendAll`: same turn of
 * the model, roles alternate); the transcript does the same, so a resumed session rebuilds
 * exactly the message the live history had, whatever the paused content ended with.
 *
 * - `holdPaused`: the preflight of a continuation keeps the paused record back instead of
 *   writing it before the request (everything else pending is written as usual).
 * - `joinPaused`: the iteration's records, with a held paused record and the continuation's
 *   record made one (the continuation's uuid and response, the paused record's parent, content
 *   and usage of both). Without a continuation to join (the call failed, was aborted, the
 *   history was compacted) the paused record is written as it is, never lost.
 *
 * Pure.
 */
import type { AssistantMessage, Usage } from '../protocol/content.js';
import type { TranscriptRecord } from './seams.js';
import type { LoopState } from './types.js';

type AssistantRecord = Extract<TranscriptRecord, { type: 'assistant' }>;

/** The pending records split into what the preflight writes now and the paused record it holds. */
export function holdPaused(state: LoopState, pending: readonly TranscriptRecord[]): { readonly write: readonly TranscriptRecord[]; readonly held: readonly TranscriptRecord[] } {
  const last = pending[pending.length - 1];
  const paused = state.transition?.reason === 'pause_turn_continuation' && last?.type === 'assistant' && last.uuid === state.lastMessageUuid;
  return paused ? { write: pending.slice(0, -1), held: [last] } : { write: pending, held: [] };
}

/** `records` (pending ones first) with a held paused record and the record right after it joined. */
export function joinPaused(records: readonly TranscriptRecord[]): TranscriptRecord[] {
  const out: TranscriptRecord[] = [];
  for (const record of records) {
    const previous = out[out.length - 1];
    if (previous?.type === 'assistant' && record.type === 'assistant' && record.parentUuid === previous.uuid) {
      out[out.length - 1] = joined(previous, record);
    } else {
      out.push(record);
    }
  }
  return out;
}

function joined(paused: AssistantRecord, continuation: AssistantRecord): AssistantRecord {
  const message: AssistantMessage = {
    ...continuation.message,
    content: [...paused.message.content, ...continuation.message.content],
    usage: sumUsage(paused.message.usage, continuation.message.usage),
  };
  return { ...continuation, parentUuid: paused.parentUuid, message };
}

/** Both API attempts' tokens: the record stands for both responses. */
function sumUsage(a: Usage, b: Usage): Usage {
  const sum: Record<string, unknown> = { ...a, ...b };
  for (const key of Object.keys(sum)) {
    const x = (a as Record<string, unknown>)[key];
    const y = (b as Record<string, unknown>)[key];
    if (typeof x === 'number' && typeof y === 'number') sum[key] = x + y;
  }
  return sum as Usage;
}
