/**
 * runCommands' timing: one stream of UI commands drives the conversation. A prompt starts a turn
 * in its own frame, a prompt during a turn is submitted to it in its frame, Stop aborts the
 * running turn in its frame (the turn's own terminal follows), a permission answer settles the
 * waiting question in its frame, and the output completes with the last turn after the commands
 * ended. Turns are fakes with the AgentRun shape (events$ + submit), so the frames are exact.
 * Letters: commands p/q (prompts), a (allow), s (stop); events: each turn's `e<n>` start
 * warning, `T` its terminal, `r` a permission question, `A` its settlement.
 */
import { describe, expect, it } from 'vitest';
import { concat, defer, fromEvent, map, merge, NEVER, Observable, of, Subject, take, takeUntil, tap, throwError, type Observable as Obs } from 'rxjs';
import type { AgentRun } from '../src/loop/runHandle.js';
import type { LoopEvent } from '../src/loop/types.js';
import type { PermissionRequest } from '../src/permissions/createPermissionPolicy.js';
import type { UiCommand } from '../src/ui/commands.js';
import { runCommands } from '../src/ui/commandSession.js';
import { createPermissionChannel } from '../src/ui/permissionChannel.js';
import type { ViewEvent } from '../src/ui/types.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const tag = { chainId: 'c', depth: 0 };
const note = (message: string): LoopEvent => ({ type: 'warning', message, ...tag });
const terminal = (reason: 'completed' | 'aborted_tools'): LoopEvent =>
  ({ type: 'terminal', reason, turnCount: 1, durationMs: 0, usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 }, costUsd: 0, ...tag }) as unknown as LoopEvent;

const C: Record<string, UiCommand> = {
  p: { type: 'prompt', input: 'first' },
  q: { type: 'prompt', input: 'second' },
  a: { type: 'permission', requestId: 'perm-1', behavior: 'allow' },
  s: { type: 'stop' },
};

/** One letter per event: the turn's prompt initial on start, `+x` a submission, T/X terminals, r/A permissions. */
function letter(event: ViewEvent): string {
  switch (event.type) {
    case 'warning':
      return event.message;
    case 'terminal':
      return event.reason === 'completed' ? 'T' : 'X';
    case 'permission_request':
      return 'r';
    case 'permission_settled':
      return event.behavior === 'allow' ? 'A' : 'D';
    default:
      return '?';
  }
}

/**
 * A fake turn: says `f`/`s` (the prompt's initial) when it starts, runs `body` (cold, relative to
 * its start), ends `completed`, or `aborted_tools` the moment its signal aborts. A submission is
 * told as a `+` warning in its frame.
 */
function fakeTurns(body: (input: string, signal: AbortSignal) => Obs<LoopEvent>) {
  const submissions: string[] = [];
  const startTurn = (prompt: { input: unknown }, signal: AbortSignal): AgentRun => {
    const input = String(prompt.input);
    // Submissions are told while the body runs; the body's end ends them too.
    const said = new Subject<LoopEvent>();
    const aborted$ = fromEvent(signal, 'abort').pipe(take(1));
    const events$ = concat(
      of(note(input[0]!)),
      merge(body(input, signal).pipe(tap({ complete: () => said.complete() })), said).pipe(takeUntil(aborted$)),
      defer(() => of(terminal(signal.aborted ? 'aborted_tools' : 'completed'))),
    );
    const submitted = (text: string) => said.next(note(`+${text[0]}`));
    return {
      events$,
      submit: (text) => {
        submissions.push(String(text));
        submitted(String(text));
        return { id: `cmd-${submissions.length}`, accepted: true };
      },
    };
  };
  return { startTurn, submissions };
}

describe('runCommands timing', () => {
  it('a prompt starts a turn in its frame; a second prompt during it is submitted in its frame; the output completes with the last turn', () => {
    createTestScheduler().run(({ cold, hot, expectObservable }) => {
      const turns = fakeTurns(() => cold<LoopEvent>('-----|'));
      const commands$ = hot<UiCommand>('-p--q|', C);
      expectObservable(commands$.pipe(runCommands({ startTurn: turns.startTurn }), map(letter))).toBe('-f--x-(T|)', { f: 'f', x: '+s', T: 'T' });
    });
  });

  it('Stop aborts the running turn in its frame (its terminal comes from the turn), and a prompt after it starts a new turn', () => {
    createTestScheduler().run(({ cold, hot, expectObservable }) => {
      const turns = fakeTurns(() => cold<LoopEvent>('----------|'));
      const commands$ = hot<UiCommand>('-p--s--q--|', C);
      expectObservable(commands$.pipe(runCommands({ startTurn: turns.startTurn }), map(letter))).toBe('-f--X--s---------(T|)');
    });
  });

  it('a permission answer settles the waiting question in its frame; Stop while it waits cancels it with the call', () => {
    const asking = (permissions: ReturnType<typeof createPermissionChannel>) =>
      fakeTurns((_input, signal) => new Observable<LoopEvent>(() => void permissions.ask({ toolName: 'Bash', input: {}, toolUseId: 't', reason: 'r', signal } as unknown as PermissionRequest)));
    createTestScheduler().run(({ hot, expectObservable }) => {
      const permissions = createPermissionChannel();
      const allowed$ = hot<UiCommand>('-p---a', C).pipe(runCommands({ startTurn: asking(permissions).startTurn, permissions }), map(letter));
      expectObservable(allowed$, '^------!').toBe('-(fr)A');
    });
    createTestScheduler().run(({ hot, expectObservable }) => {
      const permissions = createPermissionChannel();
      const stopped$ = hot<UiCommand>('-p---s', C).pipe(runCommands({ startTurn: asking(permissions).startTurn, permissions }), map(letter));
      // Stop: the turn ends aborted and the question settles (denied as cancelled) in the Stop's frame.
      expectObservable(stopped$, '^-------!').toBe('-(fr)(XD)');
    });
  });

  it('empty: no commands, no turn, completes at once', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const turns = fakeTurns(() => cold<LoopEvent>('|'));
      expectObservable(cold<UiCommand>('|').pipe(runCommands({ startTurn: turns.startTurn }), map(letter))).toBe('|');
    });
  });

  it('one / many: prompts after a turn ended each start their own turn', () => {
    createTestScheduler().run(({ cold, hot, expectObservable }) => {
      const turns = fakeTurns(() => cold<LoopEvent>('-|'));
      expectObservable(hot<UiCommand>('-p---q---|', C).pipe(runCommands({ startTurn: turns.startTurn }), map(letter))).toBe('-fT--sT--|');
    });
  });

  it('error: an error of the commands is the output error; a turn that errors is a warning and the session goes on', () => {
    createTestScheduler().run(({ cold, hot, expectObservable }) => {
      const turns = fakeTurns(() => cold<LoopEvent>('-|'));
      expectObservable(hot<UiCommand>('-p-#', C).pipe(runCommands({ startTurn: turns.startTurn }), map(letter))).toBe('-fT#');
      const failing = (): AgentRun => ({ events$: throwError(() => new Error('boom')), submit: () => ({ id: 'x', accepted: false }) });
      expectObservable(hot<UiCommand>('-p-|', C).pipe(runCommands({ startTurn: failing }), map(letter))).toBe('-w-|', { w: 'the turn failed: boom' });
    });
  });

  it('never-ending: unsubscribing early aborts the running turn', () => {
    const signals: AbortSignal[] = [];
    createTestScheduler().run(({ hot, expectObservable }) => {
      const turns = fakeTurns((_input, signal) => {
        signals.push(signal);
        return NEVER;
      });
      expectObservable(hot<UiCommand>('-p--', C).pipe(runCommands({ startTurn: turns.startTurn }), map(letter)), '^--!').toBe('-f-');
    });
    expect(signals.map((s) => s.aborted)).toEqual([true]);
  });

  it('a throwing callback: a startTurn that throws errors the output', () => {
    createTestScheduler().run(({ hot, expectObservable }) => {
      const throwing = (): AgentRun => {
        throw new Error('cannot start');
      };
      expectObservable(hot<UiCommand>('-p-', C).pipe(runCommands({ startTurn: throwing }))).toBe('-#', undefined, new Error('cannot start'));
    });
  });

  it('cold: nothing starts before subscribe, each subscription is its own session', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      let started = 0;
      const turns = fakeTurns(() => cold<LoopEvent>('-|'));
      const counted = (p: { input: unknown }, s: AbortSignal) => {
        started++;
        return turns.startTurn(p, s);
      };
      const session$ = cold<UiCommand>('p|', C).pipe(runCommands({ startTurn: counted }), map(letter));
      expect(started).toBe(0);
      expectObservable(session$).toBe('f(T|)');
      expectObservable(session$).toBe('f(T|)');
    });
  });
});
