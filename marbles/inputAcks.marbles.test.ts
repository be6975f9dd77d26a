/**
 * The loop acknowledging its input (`agentLoop({ input$, inputAcks })`), and the run handle
 * built on it (`createAgentRun` / `createAgentTreeRun` are `runHandle` over the loop and the
 * tree): every submission the loop reads is answered in its own frame, `accepted: false` once
 * the input closed at the terminal, none after the loop stopped reading.
 * Acks as letters: t accepted, f refused.
 */
import { describe, expect, it } from 'vitest';
import { map, Subject, tap } from 'rxjs';
import { createAgentTreeRun } from '../src/agents/createAgentTreeRun.js';
import { agentLoop } from '../src/loop/agentLoop.js';
import { createAgentRun } from '../src/loop/createAgentRun.js';
import type { SubmitHandle } from '../src/loop/runHandle.js';
import type { Submission, SubmissionAck } from '../src/loop/runInput.js';
import type { LoopEvent } from '../src/loop/types.js';
import type { TransportOutput } from '../src/transport/types.js';
import { coldModel, inputMarble, letters, replyMarble, submitAt, waitTool } from '../src/testing/index.js';
import { message, text, toolUse } from '../test/loop/helpers.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const LETTER: Record<string, string> = { queued: 'q', started: 's', completed: 'c', cancelled: 'x', discarded: 'd' };
const fate = letters((e: LoopEvent) => (e.type === 'terminal' ? 'X' : e.type === 'command_lifecycle' ? LETTER[e.status] : undefined));
const ackLetters = map((a: SubmissionAck) => (a.accepted ? 't' : 'f'));

describe('agentLoop inputAcks', () => {
  it('empty: no submission, no ack; the loop ends as without input', () => {
    createTestScheduler().run(({ cold, hot, expectObservable }) => {
      const r = replyMarble(message([text('hi')]), { frame: 0, start: 2 });
      const { callModel } = coldModel(cold<TransportOutput>(r.marbles, r.values));
      const acks = new Subject<SubmissionAck>();
      expectObservable(acks.pipe(ackLetters)).toBe('');
      expectObservable(agentLoop({ model: 'm', prompt: 'go', input$: hot<Submission>('-'), inputAcks: acks, deps: { callModel } }).pipe(fate)).toBe('--(X|)');
    });
  });

  it('one and many: each read submission is acknowledged in its own frame; one after the end is not read', () => {
    createTestScheduler().run(({ cold, hot, expectObservable }) => {
      const r1 = replyMarble(message([toolUse('wait', {})]), { frame: 0, start: 1 });
      const r2 = replyMarble(message([text('done')]), { frame: 0, start: 4 });
      const { callModel } = coldModel(cold<TransportOutput>(r1.marbles, r1.values), cold<TransportOutput>(r2.marbles, r2.values));
      // The batch at 11 carries a and b; the answer at 15 ends the run; c at 18 is never read.
      const typed = inputMarble('--a-b-------------c', { a: { id: 'a', input: 'x' }, b: { id: 'b', input: 'y' }, c: { id: 'c', input: 'z' } });
      const acks = new Subject<SubmissionAck>();
      expectObservable(acks.pipe(ackLetters)).toBe('--t-t');
      const loop$ = agentLoop({ model: 'm', prompt: 'go', tools: [waitTool(10)], input$: hot<Submission>(typed.marbles, typed.values), inputAcks: acks, deps: { callModel } });
      expectObservable(loop$.pipe(fate)).toBe('--q-q------(ss)(ccX|)');
    });
  });

  it('a submission from a handler of the settling events (before the terminal) is refused, not lost', () => {
    const handles: SubmitHandle[] = [];
    createTestScheduler().run(({ cold, expectObservable }) => {
      const r1 = replyMarble(message([toolUse('wait', {})]), { frame: 0, start: 1 });
      const r2 = replyMarble(message([text('done')]), { frame: 0, start: 1 });
      const { callModel } = coldModel(cold<TransportOutput>(r1.marbles, r1.values), cold<TransportOutput>(r2.marbles, r2.values));
      const run = createAgentRun({ model: 'm', prompt: 'go', tools: [waitTool(10)], deps: { callModel } });
      submitAt(run, 3, 'during the tool', { id: 'c1' });
      const out$ = run.events$.pipe(
        tap((e) => {
          // c1's `completed` is emitted as the terminal is delivered: the input has closed.
          if (e.type === 'command_lifecycle' && e.status === 'completed') handles.push(run.submit('too late', { id: 'late' }));
        }),
      );
      expectObservable(out$.pipe(fate)).toBe('---q-------s(cX|)');
    });
    expect(handles).toEqual([{ id: 'late', accepted: false }]);
  });

  it('before the loop reads (not subscribed yet) input waits in the handle and is handed over first', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const r = replyMarble(message([text('done')]), { frame: 0, start: 2 });
      const { callModel } = coldModel(cold<TransportOutput>(r.marbles, r.values), cold<TransportOutput>(r.marbles, r.values));
      const run = createAgentRun({ model: 'm', prompt: 'go', deps: { callModel } });
      expect(run.submit('early', { id: 'e' })).toEqual({ id: 'e', accepted: true });
      // Queued at once; the first turn ends at 2 and takes it into one more turn.
      expectObservable(run.events$.pipe(fate)).toBe('q-s-(cX|)');
    });
  });

  it('the tree run is the same handle: accepted while its root runs, refused after its end', () => {
    let late: SubmitHandle | undefined;
    let during: SubmitHandle | undefined;
    createTestScheduler().run(({ cold, expectObservable, flush }) => {
      const r1 = replyMarble(message([toolUse('wait', {})]), { frame: 0, start: 1 });
      const r2 = replyMarble(message([text('done')]), { frame: 0, start: 1 });
      const { callModel } = coldModel(cold<TransportOutput>(r1.marbles, r1.values), cold<TransportOutput>(r2.marbles, r2.values));
      const run = createAgentTreeRun({ model: 'm', prompt: 'go', tools: [waitTool(10)], deps: { callModel } });
      const typed = submitAt(run, 3, 'during the tool', { id: 'c1' });
      expectObservable(run.events$.pipe(fate)).toBe('---q-------s(cX|)');
      flush();
      during = typed.answer;
      late = run.submit('after the end');
    });
    expect(during).toEqual({ id: 'c1', accepted: true });
    expect(late?.accepted).toBe(false);
  });

  it('is cold: each subscription reads input$ afresh, with its own acks', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      // The model never answers within the window: each subscription is cut at 8.
      const r = replyMarble(message([text('hi')]), { frame: 0, start: 20 });
      const reply = cold<TransportOutput>(r.marbles, r.values);
      const { callModel } = coldModel(reply, reply);
      const typed = inputMarble('--a', { a: { id: 'a', input: 'x' } });
      const input = hot<Submission>(typed.marbles, typed.values);
      const acks = new Subject<SubmissionAck>();
      const loop$ = agentLoop({ model: 'm', prompt: 'go', input$: input, inputAcks: acks, deps: { callModel } });
      expectObservable(loop$.pipe(fate), '^--------!').toBe('--q--');
      expectObservable(loop$.pipe(fate), '^--------!').toBe('--q--');
      expectObservable(acks.pipe(ackLetters)).toBe('--(tt)');
      expectSubscriptions(input.subscriptions).toBe(['^--------!', '^--------!']);
    });
  });

  it('an input$ error, or an acks observer that throws, errors the run and cuts the model call', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const r = replyMarble(message([text('hi')]), { frame: 0, start: 20 });
      const m1 = cold<TransportOutput>(r.marbles, r.values);
      const m2 = cold<TransportOutput>(r.marbles, r.values);
      const failing = hot<Submission>('---#', undefined, new Error('input broke'));
      expectObservable(agentLoop({ model: 'm', prompt: 'go', input$: failing, deps: { callModel: coldModel(m1).callModel } }).pipe(fate)).toBe('---#', undefined, new Error('input broke'));
      const typed = inputMarble('--a', { a: { id: 'a', input: 'x' } });
      const throwingAcks = { next: () => { throw new Error('ack handler broke'); } };
      const loop$ = agentLoop({ model: 'm', prompt: 'go', input$: hot<Submission>(typed.marbles, typed.values), inputAcks: throwingAcks, deps: { callModel: coldModel(m2).callModel } });
      // The submission was queued (q) before its ack threw.
      expectObservable(loop$.pipe(fate)).toBe('--(q#)', undefined, new Error('ack handler broke'));
      expectSubscriptions(m1.subscriptions).toBe('^--!');
      expectSubscriptions(m2.subscriptions).toBe('^-!');
    });
  });
});
