/**
 * The marble kit of `rxagent/testing`, each piece on its own: the event builders feed a real
 * loop, `replyMarble` puts each event on the frame it promises (checked by parsing the diagram
 * back), `coldModel` records requests and subscriptions, the letter operators drop what they do
 * not name, the tool fixtures keep their frames, `submitAt` submits in its frame, and
 * `inputMarble` draws `agentLoop({ input$ })`'s input for `hot()`.
 */
import fc from 'fast-check';
import { lastValueFrom, toArray, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { agentLoop } from '../../src/loop/agentLoop.js';
import { createAgentRun } from '../../src/loop/createAgentRun.js';
import type { AgentLoopOptions, CallModel } from '../../src/loop/options.js';
import type { LoopEvent, TerminalEvent } from '../../src/loop/types.js';
import type { TransportOutput } from '../../src/transport/types.js';
import {
  blockStop,
  coldModel,
  eventLetters,
  inputJsonDelta,
  inputMarble,
  letters,
  marbleFromTimeline,
  messageDelta,
  messageStart,
  messageStop,
  neverTool,
  progressTool,
  replyMarble,
  scriptedMessageToEvents,
  signatureDelta,
  submitAt,
  testScheduler,
  textDelta,
  textStart,
  thinkingDelta,
  thinkingStart,
  throwingTool,
  toolUseStart,
  waitTool,
  type ScriptedMessage,
} from '../../src/testing/index.js';

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const loop = (callModel: CallModel, extra: Partial<AgentLoopOptions> = {}) =>
  agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', ...extra, deps: { callModel } });
/** The frame of every value of a diagram, as the TestScheduler reads it. */
const parsed = (marbles: string) => scheduler().run(() => TestScheduler.parseMarbles(marbles, undefined, undefined, undefined, true));
const framesOf = (marbles: string): number[] => parsed(marbles).filter((m) => m.notification.kind === 'N').map((m) => m.frame);

describe('stream event builders', () => {
  it('make a reply the loop assembles: thinking with its signature, text, a tool call in pieces', async () => {
    const events: TransportOutput[] = [
      messageStart(),
      thinkingStart(0),
      thinkingDelta('let me see', 0),
      signatureDelta('sig', 0),
      blockStop(0),
      textStart(1),
      textDelta('Hi ', 1),
      textDelta('there', 1),
      blockStop(1),
      toolUseStart('echo', {}, 'toolu_1', 2),
      inputJsonDelta('{"x":', 2),
      inputJsonDelta('"a"}', 2),
      blockStop(2),
      messageDelta('max_tokens', { output_tokens: 7 }),
      messageStop(),
    ];
    const { of } = await import('rxjs');
    const all = await lastValueFrom(loop(() => of(...events), { maxTurns: 1 }).pipe(toArray()));
    const message = all.find((e): e is Extract<LoopEvent, { type: 'assistant_message' }> => e.type === 'assistant_message')!.message;
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'let me see', signature: 'sig' },
      { type: 'text', text: 'Hi there' },
      { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { x: 'a' } },
    ]);
    expect(message.stop_reason).toBe('max_tokens');
  });

  it('toolUseStart with the whole input and no delta is the same call', async () => {
    const { of } = await import('rxjs');
    const events = [messageStart(), toolUseStart('wait', { n: 1 }), blockStop(), messageDelta('tool_use'), messageStop()];
    const all = await lastValueFrom(loop(() => of(...events), { tools: [waitTool(0)], maxTurns: 1 }).pipe(toArray()));
    expect(all.find((e) => e.type === 'tool_start')).toMatchObject({ name: 'wait', input: { n: 1 }, toolUseId: 'toolu_wait' });
  });
});

describe('marbleFromTimeline', () => {
  it('puts every letter on its frame, groups included, whatever the gaps', () => {
    // Timelines the syntax can write: each group starts at or after the frames the one before it
    // takes up (a lone letter 1, a group of n letters n + 2).
    const groupsArb = fc.array(fc.record({ gap: fc.integer({ min: 0, max: 12 }), size: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(groupsArb, (groups) => {
        const frames: number[] = [];
        let free = 0;
        for (const { gap, size } of groups) {
          const at = free + gap;
          for (let i = 0; i < size; i++) frames.push(at);
          free = at + (size === 1 ? 1 : size + 2);
        }
        const timeline = frames.map((frame, i) => ({ frame, letter: 'abcdefghijklmnopqrstuvwxyz'[i]! }));
        const marbles = marbleFromTimeline(timeline, { kind: 'never' });
        expect(framesOf(marbles)).toEqual(frames);
      }),
    );
  });

  it('completes in the frame it is told, and refuses a value inside the frames a group takes up', () => {
    const marbles = marbleFromTimeline([{ frame: 0, letter: 'a' }, { frame: 5, letter: 'b' }], { kind: 'complete', frame: 5 });
    expect(marbles).toBe('a 4ms (b|)');
    expect(parsed(marbles).find((m) => m.notification.kind === 'C')?.frame).toBe(5);
    expect(() => marbleFromTimeline([{ frame: 0, letter: 'a' }, { frame: 0, letter: 'b' }, { frame: 2, letter: 'c' }], { kind: 'never' })).toThrow(
      /frame 2 falls inside the group before it/,
    );
  });

  it('writes a single letter plainly and several in one frame as a group', () => {
    expect(marbleFromTimeline([{ frame: 0, letter: 'a' }, { frame: 3, letter: 'b' }, { frame: 3, letter: 'c' }], { kind: 'never' })).toBe('a 2ms (bc)');
    expect(marbleFromTimeline([{ frame: 2, letter: 'a' }], { kind: 'error', frame: 2 })).toBe('2ms (a#)');
    expect(() => marbleFromTimeline([{ frame: -1, letter: 'a' }], { kind: 'never' })).toThrow(RangeError);
  });
});

describe('replyMarble', () => {
  const toolReply: ScriptedMessage = { kind: 'message', blocks: [{ type: 'tool_use', name: 'wait', input: {} }] };

  it('one event a frame; the end (message_delta, message_stop, complete) in one frame', () => {
    const reply = replyMarble(toolReply);
    expect(reply.marbles).toBe('a b c d (ef|)');
    expect(reply.frames).toEqual([0, 1, 2, 3, 4, 4]);
    expect(Object.values(reply.values)).toEqual(scriptedMessageToEvents(toolReply).map((e) => e.event));
    expect(reply.values['d']).toEqual({ type: 'content_block_stop', index: 0 });
  });

  it("turns the script's delays into frames: endDelayMs, delayMs, deltaDelayMs", () => {
    expect(replyMarble({ ...toolReply, endDelayMs: 9 }).frames).toEqual([0, 1, 2, 3, 13, 13]);
    const text = replyMarble([{ type: 'text', text: 'abcd', chunkSize: 2, delayMs: 3, deltaDelayMs: 2 }]);
    // start 0; block start 1+3; deltas each 1+2 later; stop 1 later; end 1 later.
    expect(text.frames).toEqual([0, 4, 7, 10, 11, 12, 12]);
    expect(framesOf(text.marbles)).toEqual(text.frames);
  });

  it('frame 0 puts the reply in one frame; start moves it; chunking cuts text that sets no chunkSize', () => {
    expect(replyMarble([{ type: 'text', text: 'done' }], { frame: 0 }).marbles).toBe('(abcdef|)');
    expect(replyMarble([{ type: 'text', text: 'done' }], { frame: 0, start: 2 }).marbles).toBe('2ms (abcdef|)');
    const chunked = replyMarble([{ type: 'text', text: 'abcdef' }], { chunking: 2 });
    const deltas = Object.values(chunked.values).filter((e) => e.type === 'content_block_delta');
    expect(deltas.map((e) => (e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? e.delta.text : ''))).toEqual(['ab', 'cd', 'ef']);
    expect(replyMarble([{ type: 'text', text: 'abcdef', chunkSize: 3 }], { chunking: 1 }).frames).toHaveLength(7);
  });

  it('a stalled reply never completes; a cut one errors with the given error', () => {
    expect(replyMarble({ ...toolReply, stallAfterEvents: 2 }).marbles).toBe('a b');
    const boom = new Error('cut');
    const cut = replyMarble({ ...toolReply, cutAfterEvents: 3 }, { error: boom });
    expect(cut.marbles).toBe('a b (c#)');
    expect(cut.error).toBe(boom);
  });

  it('refuses what a diagram cannot say: a mid-stream API error, more events than letters, a bad frame', () => {
    expect(() => replyMarble({ ...toolReply, errorAfterEvents: { events: 1, type: 'overloaded_error', message: 'x' } })).toThrow(/'#'/);
    expect(() => replyMarble([{ type: 'text', text: 'x'.repeat(60), chunkSize: 1 }])).toThrow(/larger chunking/);
    expect(() => replyMarble(toolReply, { frame: -1 })).toThrow(RangeError);
  });

  it('default ids differ per response number', () => {
    const first = replyMarble(toolReply).values['b'];
    const second = replyMarble(toolReply, { response: 1 }).values['b'];
    expect(first).toMatchObject({ content_block: { id: 'toolu_scripted_0_0' } });
    expect(second).toMatchObject({ content_block: { id: 'toolu_scripted_1_0' } });
  });
});

describe('coldModel', () => {
  it('plays the n-th response to the n-th call, records requests and subscription frames', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const first = replyMarble([{ type: 'tool_use', name: 'wait', input: {} }]);
      const second = replyMarble([{ type: 'text', text: 'done' }], { frame: 0 });
      const model = coldModel(cold(first.marbles, first.values), cold(second.marbles, second.values));
      expectObservable(loop(model.callModel, { tools: [waitTool(5)] }).pipe(eventLetters())).toBe('i--sa---(rutiaT|)');
      expectSubscriptions(model.subscriptionsOf(0)).toBe('^---!');
      expectSubscriptions(model.subscriptionsOf(1)).toBe('8ms (^!)');
      flush();
      expect(model.requests).toHaveLength(2);
      expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result', content: 'waited 5' }] });
      expect(model.subscriptionsOf(2)).toEqual([]);
    });
  });

  it('a call past the last response fails the loop with a clear error', async () => {
    const model = coldModel();
    const all = await lastValueFrom(loop(model.callModel).pipe(toArray()));
    const terminal = all.at(-1) as TerminalEvent;
    expect(String(terminal.error?.message ?? terminal.error)).toMatch(/coldModel: the loop made call #1, but only 0 response/);
  });
});

describe('letters and eventLetters', () => {
  it('keep only the named events; a function may choose per event', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const reply = replyMarble([{ type: 'text', text: 'hi' }]);
      const model = () => coldModel(cold(reply.marbles, reply.values)).callModel;
      expectObservable(loop(model()).pipe(letters({ iteration_start: 'i', terminal: 'T' }))).toBe('i---(T|)');
      const byText = (e: LoopEvent) => (e.type === 'model' && e.event.type === 'text_delta' ? e.event.text : undefined);
      expectObservable(loop(model()).pipe(letters(byText))).toBe('--h-|', { h: 'hi' });
      expectObservable(loop(model()).pipe(eventLetters())).toBe('i---(aT|)');
    });
  });
});

describe('tool fixtures', () => {
  const oneCall = (name: string) => replyMarble([{ type: 'tool_use', name, input: {} }]);
  const done = replyMarble([{ type: 'text', text: 'ok' }], { frame: 0, response: 1 });
  const run = (cold: (m: string, v?: Record<string, TransportOutput>) => Observable<TransportOutput>, name: string, tool: ReturnType<typeof waitTool>) => {
    const call = oneCall(name);
    return loop(coldModel(cold(call.marbles, call.values), cold(done.marbles, done.values)).callModel, { tools: [tool] });
  };

  it('waitTool answers N frames after it starts; progressTool reports once a frame', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(run(cold, 'wait', waitTool(2)).pipe(eventLetters())).toBe('i--sa(rutiaT|)');
      const progressLetters = letters({ tool_start: 's', tool_progress: 'p', tool_result: 'r' });
      expectObservable(run(cold, 'progress', progressTool(3)).pipe(progressLetters)).toBe('---spp(pr|)');
    });
  });

  it('neverTool runs until unsubscribed; throwingTool gives an error result at once', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(run(cold, 'never', neverTool()).pipe(eventLetters()), undefined).toBe('i--sa');
      const failing = run(cold, 'throws', throwingTool('disk full')).pipe(
        letters((e) => (e.type === 'tool_result' ? (e.result.is_error ? 'E' : 'R') : e.type === 'terminal' ? 'T' : undefined)),
      );
      expectObservable(failing).toBe('---E(T|)');
    });
  });

  it('the fixtures take a name, concurrency safety and interrupt behaviour', () => {
    const tool = waitTool(1, { name: 'sleepy', safe: false, interrupt: 'block', output: 'zzz' });
    expect(tool).toMatchObject({ name: 'sleepy', interruptBehavior: 'block' });
    expect(tool.isConcurrencySafe).toBe(false);
  });
});

describe('submitAt and testScheduler', () => {
  it('submits in its frame and keeps the answer; testScheduler needs no test runner', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const call = replyMarble([{ type: 'tool_use', name: 'wait', input: {} }]);
      const after = replyMarble([{ type: 'text', text: 'ok' }], { frame: 0, response: 1 });
      const model = coldModel(cold(call.marbles, call.values), cold(after.marbles, after.values));
      const run = createAgentRun({ model: 'claude-sonnet-4-5', prompt: 'go', tools: [waitTool(5)], deps: { callModel: model.callModel } });
      const typed = submitAt(run, 4, 'also this', { id: 'c1' });
      expectObservable(run.events$.pipe(letters({ tool_result: 'r', terminal: 'T' }))).toBe('8ms (rT|)');
      flush();
      expect(typed.answer).toEqual({ id: 'c1', accepted: true });
      expect(JSON.stringify(model.requests[1]!.messages.at(-1))).toContain('also this');
    });
    expect(() => testScheduler().run(({ cold, expectObservable }) => expectObservable(cold('a')).toBe('b'))).toThrow();
  });
});

describe('inputMarble', () => {
  it('one submission per letter: a string is the text, an object keeps its id and interrupt; ids default to input-<letter>', () => {
    const typed = inputMarble('-a 10ms (bc)', { a: 'check the tests', b: { input: 'stop', interrupt: true }, c: { id: 'mine', input: 'and this' } });
    expect(typed.marbles).toBe('-a 10ms (bc)');
    expect(typed.values).toEqual({
      a: { id: 'input-a', input: 'check the tests' },
      b: { id: 'input-b', input: 'stop', interrupt: true },
      c: { id: 'mine', input: 'and this' },
    });
    expect(framesOf(typed.marbles)).toEqual([1, 12, 12]);
  });

  it('a letter without an input, or an input without a letter, is a RangeError naming it', () => {
    expect(() => inputMarble('-a-b', { a: 'x' })).toThrow(new RangeError("inputMarble: the letter 'b' of '-a-b' has no input"));
    expect(() => inputMarble('-a', { a: 'x', z: 'y' })).toThrow(new RangeError("inputMarble: the input 'z' is not in '-a'"));
  });

  it("feeds agentLoop({ input$ }) through hot(): typed during the tool, carried next to its result; input$ is read until the terminal", () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions, flush }) => {
      const call = replyMarble([{ type: 'tool_use', name: 'wait', input: {} }]);
      const after = replyMarble([{ type: 'text', text: 'ok' }], { frame: 0, response: 1 });
      const model = coldModel(cold(call.marbles, call.values), cold(after.marbles, after.values));
      const typed = inputMarble('----a', { a: 'also this' });
      const input$ = hot(typed.marbles, typed.values);
      const events$ = agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', tools: [waitTool(5)], input$, deps: { callModel: model.callModel } });
      expectObservable(events$.pipe(letters({ tool_start: 's', tool_result: 'r', terminal: 'T' }))).toBe('---s----(rT|)');
      expectSubscriptions(input$.subscriptions).toBe('^-------!');
      flush();
      expect(model.requests[1]!.messages.at(-1)).toEqual({
        role: 'user',
        content: [expect.objectContaining({ type: 'tool_result', content: 'waited 5' }), { type: 'text', text: 'also this', cache_control: { type: 'ephemeral' } }],
      });
    });
  });
});
