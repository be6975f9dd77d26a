/**
 * `replyMarble(reply, options)`: a scripted reply (the same `ScriptedMessage` or block list the
 * scripted server plays) as `{ marbles, values }` for `cold()`, so a marble test and an HTTP test
 * can share one script. The script's real-time delays (`delayMs`, `deltaDelayMs`, `stopDelayMs`,
 * `endDelayMs`) become that many virtual frames.
 *
 * Frames: `message_start` at `start`; every later event `frame` frames after the one before it,
 * plus its delay; `message_delta`, `message_stop` and the completion together, in one frame (the
 * API sends them back to back).
 *
 * @example
 * ```ts
 * const reply = replyMarble([{ type: 'tool_use', name: 'wait', input: {} }]);
 * reply.marbles; // 'a b c d (ef|)': the tool's block closes at frame 3, the reply ends at 4
 * const response = cold(reply.marbles, reply.values);
 * ```
 */
import type { TransportOutput } from '../../transport/types.js';
import { DEFAULT_SCRIPTED_MODEL, planScriptedStream } from '../encodeScript.js';
import type { ScriptedBlock, ScriptedMessage } from '../script.js';
import { MARBLE_LETTERS, marbleFromTimeline, type MarbleEnd, type TimedLetter } from './timeline.js';

/** Options of {@link replyMarble}. */
export interface ReplyMarbleOptions {
  /** Frames between consecutive events (default 1; 0 puts the whole reply in one frame). */
  readonly frame?: number;
  /** The frame of `message_start` (default 0). */
  readonly start?: number;
  /** Characters per text/thinking delta, or per input_json_delta, for blocks that set no `chunkSize`. */
  readonly chunking?: number;
  /** Which response of the conversation this is: makes default message and tool ids unique (default 0). */
  readonly response?: number;
  /** The model name of `message_start` (default the scripted model's). */
  readonly model?: string;
  /** The error of a reply cut by `cutAfterEvents` (default an `Error` saying so). */
  readonly error?: unknown;
}

/** A reply as a marble diagram and its values, ready for `cold(marbles, values, error)`. */
export interface ReplyMarble {
  readonly marbles: string;
  readonly values: Readonly<Record<string, TransportOutput>>;
  /** Set when the reply is cut (`cutAfterEvents`): pass it as `cold()`'s third argument. */
  readonly error?: unknown;
  /** The frame of each event, in order (the frame a block's `content_block_stop` lands is when its tool starts). */
  readonly frames: readonly number[];
}

/** Turns a scripted reply into a marble diagram (see the file head for the frames). */
export function replyMarble(reply: ScriptedMessage | readonly ScriptedBlock[], options: ReplyMarbleOptions = {}): ReplyMarble {
  const { frame = 1, start = 0, chunking, response = 0, model = DEFAULT_SCRIPTED_MODEL } = options;
  if (!Number.isInteger(frame) || frame < 0) throw new RangeError(`replyMarble: frame must be a non-negative integer, got ${frame}`);
  const message: ScriptedMessage = isMessage(reply) ? reply : { kind: 'message', blocks: reply };
  if (message.errorAfterEvents) {
    throw new Error("replyMarble: an API error mid-stream is the transport's error in a marble test: end the diagram with '#' and that error");
  }
  const chunked: ScriptedMessage =
    chunking === undefined ? message : { ...message, blocks: message.blocks.map((b) => (b.chunkSize === undefined ? { ...b, chunkSize: chunking } : b)) };
  const plan = planScriptedStream(chunked, { responseIndex: response, model });
  if (plan.events.length > MARBLE_LETTERS.length) {
    throw new RangeError(`replyMarble: ${plan.events.length} events are more than ${MARBLE_LETTERS.length} letters; use a larger chunking`);
  }

  const values: Record<string, TransportOutput> = {};
  const timeline: TimedLetter[] = [];
  const frames: number[] = [];
  let at = start;
  plan.events.forEach(({ event, delayMs }, i) => {
    const together = event.type === 'message_stop' && plan.events[i - 1]?.event.type === 'message_delta';
    if (i > 0 && !together) at += frame + delayMs;
    else if (i === 0) at += delayMs;
    const letter = MARBLE_LETTERS[i]!;
    values[letter] = event;
    timeline.push({ frame: at, letter });
    frames.push(at);
  });
  const end: MarbleEnd = plan.ending === 'stall' ? { kind: 'never' } : { kind: plan.ending === 'end' ? 'complete' : 'error', frame: at };
  const marbles = marbleFromTimeline(timeline, end);
  return plan.ending === 'destroy'
    ? { marbles, values, frames, error: options.error ?? new Error('the scripted reply was cut (cutAfterEvents)') }
    : { marbles, values, frames };
}

const isMessage = (reply: ScriptedMessage | readonly ScriptedBlock[]): reply is ScriptedMessage => !Array.isArray(reply);
