/**
 * `finish(decision)`: a settled decision as what the iteration emits and what the transcript
 * records. Pure: the caller writes the records (before the terminal) or hands them on with the
 * `Continue` (the next iteration writes them before its request).
 */
import type { AssistantMessage, MessageParam } from '../protocol/content.js';
import { appendAll, userAddition, terminal, type Addition, type Decision } from './decision.js';
import { continueWith, terminalOf, transitionEvent, userMessageEvent, warningEvent, type Continue } from './events.js';
import type { TranscriptRecord } from './seams.js';
import { joinPaused } from './pausedRecord.js';
import type { SentHistory } from './sentHistory.js';
import { nextTurn } from './transitions.js';
import type { LoopEvent, LoopState, TerminalEvent } from './types.js';

/** A decision after the hooks ran: a terminal or a continue. */
export type SettledDecision = Extract<Decision, { type: 'terminal' | 'continue' }>;

export interface Finished {
  readonly events: readonly LoopEvent[];
  readonly records: readonly TranscriptRecord[];
  /** How the iteration ends: the next iteration, or the run's terminal (after the records are written). */
  readonly end: Continue | TerminalEvent;
  /** The history at the end (what a failed transcript write ends the run with). */
  readonly messages: readonly MessageParam[];
}

export interface FinishFacts {
  /** `ctx.now()`: transcript timestamps and the terminal's duration use the one clock. */
  readonly now: number;
  readonly startedAt: number;
  /** Transcript records still pending from earlier in this iteration (none written yet). */
  readonly pending: readonly TranscriptRecord[];
  /** Whether records are kept at all (a transcript sink is configured). */
  readonly recording: boolean;
  /** Uuids of records already written during the iteration (earlyRecord.ts): left out here. */
  readonly writtenEarly?: ReadonlySet<string>;
  /** The history as this iteration's request sent it, handed on to the next (sentHistory.ts). */
  readonly sent?: SentHistory;
}

export function finish(state: LoopState, decision: SettledDecision, facts: FinishFacts): Finished {
  const events: LoopEvent[] = [];
  for (const a of decision.additions) {
    if (a.message.role === 'user') {
      events.push(userMessageEvent(state, a.message as MessageParam & { role: 'user' }, a.uuid, a.reason ?? 'prompt', a.isMeta));
    }
  }
  for (const message of decision.warnings) events.push(warningEvent(state, message));
  const records = facts.recording ? joinPaused([...facts.pending, ...recordsOf(state, decision.additions, facts.now)]).filter((r) => !('uuid' in r && facts.writtenEarly?.has(r.uuid))) : [];
  if (decision.type === 'continue') {
    const next = decision.state;
    events.push(transitionEvent(state, next.transition!.reason, next.turnCount));
    return { events, records: [], end: continueWith(next, records, facts.sent), messages: next.messages };
  }
  const messages = appendAll(state, decision.additions).messages;
  const end = terminalOf(state, facts.now - facts.startedAt, { reason: decision.reason, error: decision.error, messages, deferredToolUse: decision.deferredToolUse });
  return { events, records, end, messages };
}

/** Whether input submitted while the turn was ending starts one more turn (instead of being dropped). */
export function takesQueuedInput(decision: SettledDecision): boolean {
  return decision.type === 'terminal' && decision.reason === 'completed' && decision.additions[decision.additions.length - 1]?.message.role === 'assistant';
}

/** A completed turn that goes on with queued input (or ends at the turn limit). */
export function withQueuedInput(state: LoopState, decision: SettledDecision, queued: MessageParam['content'], uuid: string, maxTurns: number): SettledDecision {
  const additions = [...decision.additions, userAddition({ role: 'user', content: queued }, uuid, 'queued_input', false)];
  if (state.turnCount + 1 > maxTurns) return terminal('max_turns', { additions, warnings: decision.warnings }) as SettledDecision;
  return { type: 'continue', state: nextTurn(state, appendAll(state, additions), state.shared), additions, warnings: decision.warnings };
}

/** The transcript records of a decision's additions, chained from the state's last message. */
export function recordsOf(state: LoopState, additions: readonly Addition[], timestamp: number): TranscriptRecord[] {
  let parentUuid = state.lastMessageUuid;
  return additions.map((a) => {
    const base = { chainId: state.chainId, depth: state.depth, timestamp, uuid: a.uuid, parentUuid };
    parentUuid = a.uuid;
    return a.message.role === 'assistant'
      ? { ...base, type: 'assistant' as const, message: a.source ? { ...a.source, content: a.message.content as AssistantMessage['content'] } : (a.message as unknown as AssistantMessage) }
      : { ...base, type: 'user' as const, message: a.message, reason: a.reason ?? 'prompt', isMeta: a.isMeta };
  });
}
