/** A fake model for agent-tree marble specs: the parent's replies by call count, children's by system prompt. */
import type { RunHelpers } from 'rxjs/testing';
import type { CallModel } from '../../src/loop/options.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { replyMarble } from '../../src/testing/index.js';
import type { TransportOutput } from '../../src/transport/types.js';
import { message, systemText, text } from '../../test/loop/helpers.js';

/** One model call's stream, by the system prompt of its request (for `expectSubscriptions`). */
export interface FakeStream {
  readonly system: string;
  readonly stream: ReturnType<RunHelpers['cold']>;
}

/**
 * `parent(n)` plays the parent's n-th response (counted per fake, starting at frame 0 of its
 * call); a child whose system prompt is a key of `childDelay` answers "<system> answer" that
 * many frames after its call.
 */
export function fakeTreeModel(
  cold: RunHelpers['cold'],
  parent: (n: number) => ReturnType<typeof message>,
  childDelay: Readonly<Record<string, number>>,
): { callModel: CallModel; requests: MessagesRequest[]; streams: FakeStream[] } {
  const requests: MessagesRequest[] = [];
  const streams: FakeStream[] = [];
  let parentCalls = 0;
  const callModel: CallModel = (request) => {
    requests.push(request);
    const system = systemText(request);
    const delay = childDelay[system];
    const msg = delay !== undefined ? message([text(`${system} answer`)]) : parent(parentCalls++);
    const { marbles, values } = replyMarble(msg, { frame: 0, start: delay ?? 0 });
    const stream = cold<TransportOutput>(marbles, values);
    streams.push({ system, stream });
    return stream;
  };
  return { callModel, requests, streams };
}

/** The streams of the calls made with `system`, in call order. */
export const streamsOf = (streams: readonly FakeStream[], system: string) => streams.filter((s) => s.system === system).map((s) => s.stream);
