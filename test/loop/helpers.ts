/** Fake models for loop tests: scripted messages turned into stream events, no HTTP. */
import { defer, from, throwError, type Observable } from 'rxjs';
import { scriptedMessageToEvents } from '../../src/testing/encodeScript.js';
import type { ScriptedBlock, ScriptedMessage } from '../../src/testing/script.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { StreamEvent } from '../../src/protocol/events.js';
import type { TransportOutput } from '../../src/transport/types.js';
import type { CallModel } from '../../src/loop/options.js';

export function message(blocks: readonly ScriptedBlock[], extra: Partial<ScriptedMessage> = {}): ScriptedMessage {
  return { kind: 'message', blocks, ...extra };
}
export const text = (t: string): ScriptedBlock => ({ type: 'text', text: t });
export const toolUse = (name: string, input: Record<string, unknown>, id?: string): ScriptedBlock => ({
  type: 'tool_use',
  name,
  input,
  ...(id ? { id } : {}),
});

export function eventsOf(msg: ScriptedMessage, responseIndex = 0): StreamEvent[] {
  return scriptedMessageToEvents(msg, { responseIndex, model: 'claude-sonnet-4-5' }).map((e) => e.event);
}

export type FakeStep = ScriptedMessage | { readonly kind: 'error'; readonly error: unknown };

/**
 * A synchronous fake model: the n-th call plays `script(n)`. Records every request.
 */
export function syncModel(script: (n: number, request: MessagesRequest) => FakeStep): { callModel: CallModel; requests: MessagesRequest[] } {
  const requests: MessagesRequest[] = [];
  const callModel: CallModel = (request) =>
    defer((): Observable<TransportOutput> => {
      const n = requests.length;
      requests.push(request);
      const step = script(n, request);
      if (step.kind === 'error') return throwError(() => step.error);
      return from(eventsOf(step, n));
    });
  return { callModel, requests };
}

let counter = 0;
export const seqId = () => `id-${++counter}`;
