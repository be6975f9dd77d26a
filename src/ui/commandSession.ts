/**
 * A conversation driven by one stream of UI commands (prompts, permission answers, Stop; see
 * commands.ts): `runCommands(options)` is the operator for Rx apps (`commands$` in, every turn's
 * events and the permission questions out, as `ViewEvent`s ready for `toView`), and
 * `createCommandSession` is the same thing as an object for hosts that answer each command at
 * once (the HTTP server says whether a prompt started a turn or joined one).
 *
 * ```
 * commands$: --p------a---s----p--|      p prompt, a permission answer, s stop
 * turn 1:      ^-q--r----!               r permission_request, ! aborted by s
 * turn 2:                      ^--...--T|
 * output:    --e-q--r-a--t-----e--...--T|  (a = permission_settled, t = turn 1's terminal)
 * ```
 * The output completes once `commands$` completed and the last turn ended; unsubscribing aborts
 * the running turn.
 */
import { Observable, Subject, type Subscription } from 'rxjs';
import type { AgentRun } from '../loop/runHandle.js';
import type { LoopEvent } from '../loop/types.js';
import type { ElicitationChannel } from './elicitationChannel.js';
import type { PermissionChannel } from './permissionChannel.js';
import { assertNever } from '../util/assertNever.js';
import type { ViewEvent } from './types.js';
import { IDLE, reduceCommands, type CommandAction, type CommandEffect, type CommandState, type QueuedPrompt, type UiCommand } from './commands.js';

export interface CommandSessionOptions {
  /**
   * Starts one turn for `prompt` (e.g. `createAgentRun({ ...options, prompt: prompt.input, signal })`);
   * aborting `signal` stops it. Later prompts are submitted to its `submit`.
   */
  readonly startTurn: (prompt: QueuedPrompt, signal: AbortSignal) => AgentRun;
  /** Where the turns' permission questions wait (its `ask` is the policy's); answered by `permission` commands. */
  readonly permissions?: PermissionChannel;
  /** Where MCP servers' questions wait (its `ask` is the MCP client's); answered by `elicitation` commands. */
  readonly elicitations?: ElicitationChannel;
  /** Told each time the last turn ended and nothing waits (synchronously, after its last event). */
  readonly onIdle?: () => void;
}

export type CommandOutcome =
  | { readonly type: 'prompt'; readonly status: 'started' | 'joined' | 'queued'; readonly commandId?: string }
  | { readonly type: 'permission'; readonly answered: boolean }
  | { readonly type: 'elicitation'; readonly answered: boolean }
  | { readonly type: 'stop'; readonly stopped: boolean };

export interface CommandSession {
  dispatch(command: UiCommand): CommandOutcome;
  /** Hot: every turn's events and the permission questions, as they happen. */
  readonly events$: Observable<ViewEvent>;
  readonly running: boolean;
  /** Aborts the running turn and resolves once it ended; nothing starts after. */
  close(): Promise<void>;
}

interface Turn {
  readonly controller: AbortController;
  readonly run: AgentRun;
  readonly submitted: Map<string, QueuedPrompt>;
  subscription?: Subscription;
  readonly ended: Promise<void>;
}

export function createCommandSession(options: CommandSessionOptions): CommandSession {
  const events$ = new Subject<ViewEvent>();
  let state: CommandState = IDLE;
  let turn: Turn | undefined;
  let closed = false;
  const permissionEvents = options.permissions?.events$.subscribe((event) => events$.next(event));
  const elicitationEvents = options.elicitations?.events$.subscribe((event) => events$.next(event));

  /** Runs an action's effects; returns the outcome of the last one for `dispatch`. */
  const act = (action: CommandAction): CommandOutcome | undefined => {
    const next = reduceCommands(state, action);
    state = next.state;
    let outcome: CommandOutcome | undefined;
    for (const effect of next.effects) outcome = perform(effect);
    return outcome;
  };

  const perform = (effect: CommandEffect): CommandOutcome => {
    switch (effect.type) {
      case 'start_turn':
        start(effect.prompt);
        return { type: 'prompt', status: 'started' };
      case 'submit': {
        const handle = turn!.run.submit(effect.prompt.input, effect.prompt.interrupt ? { interrupt: true } : {});
        if (handle.accepted) {
          turn!.submitted.set(handle.id, effect.prompt);
          return { type: 'prompt', status: 'joined', commandId: handle.id };
        }
        act({ type: 'not_taken', prompt: effect.prompt });
        return { type: 'prompt', status: 'queued' };
      }
      case 'answer':
        return { type: 'permission', answered: options.permissions?.answer(effect.requestId, effect.answer) ?? false };
      case 'answer_elicitation':
        return { type: 'elicitation', answered: options.elicitations?.answer(effect.requestId, effect.answer) ?? false };
      case 'abort':
        turn?.controller.abort();
        return { type: 'stop', stopped: turn !== undefined };
    }
  };

  const start = (prompt: QueuedPrompt): void => {
    if (closed) return;
    const controller = new AbortController();
    let ended!: () => void;
    const current: Turn = { controller, run: options.startTurn(prompt, controller.signal), submitted: new Map(), ended: new Promise<void>((resolve) => (ended = resolve)) };
    turn = current;
    const finish = () => {
      if (turn === current) turn = undefined;
      ended();
      if (closed) return;
      act({ type: 'turn_ended' });
      if (!state.running) options.onIdle?.();
    };
    current.subscription = current.run.events$.subscribe({
      next: (event: LoopEvent) => {
        // A submission the turn ended before absorbing is not lost: it starts the next turn
        // (unless Stop ended this one, which drops what was typed for it).
        const discarded = event.type === 'command_lifecycle' && event.status === 'discarded' ? current.submitted.get(event.id) : undefined;
        if (discarded && !controller.signal.aborted) state = { ...state, waiting: [...state.waiting, discarded] };
        events$.next(event);
      },
      error: (error: unknown) => {
        events$.next({ type: 'warning', message: `the turn failed: ${error instanceof Error ? error.message : String(error)}`, chainId: '', depth: 0 });
        finish();
      },
      complete: finish,
    });
  };

  return {
    dispatch: (command) => {
      if (closed) throw new Error('the session is closed');
      const outcome = act({ type: 'command', command });
      if (outcome) return outcome;
      // No effect ran: a prompt waiting behind others, or Stop while idle.
      return noEffect(command);
    },
    events$: events$.asObservable(),
    get running() {
      return state.running;
    },
    close: () => {
      if (closed) return Promise.resolve();
      closed = true;
      const running = turn;
      act({ type: 'close' });
      const end = () => {
        permissionEvents?.unsubscribe();
        elicitationEvents?.unsubscribe();
        events$.complete();
      };
      // Idle: completes at once (an operator's subscriber sees it in the same frame).
      if (!running) return Promise.resolve(end());
      return running.ended.then(end);
    },
  };
}

/** The operator form: `commands$.pipe(runCommands({ startTurn, permissions }))`. Cold. */
export function runCommands(options: CommandSessionOptions): (commands$: Observable<UiCommand>) => Observable<ViewEvent> {
  return (commands$) =>
    new Observable<ViewEvent>((subscriber) => {
      let inputDone = false;
      // Completes once the commands ended and no turn runs.
      const session: CommandSession = createCommandSession({
        ...options,
        onIdle: () => {
          options.onIdle?.();
          if (inputDone) void session.close();
        },
      });
      const output = session.events$.subscribe(subscriber);
      const input = commands$.subscribe({
        next: (command) => {
          try {
            session.dispatch(command);
          } catch (error) {
            subscriber.error(error);
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          inputDone = true;
          if (!session.running) void session.close();
        },
      });
      return () => {
        input.unsubscribe();
        void session.close();
        output.unsubscribe();
      };
    });
}

/** The outcome of a command no effect ran for: a prompt waiting behind others, Stop while idle. */
function noEffect(command: UiCommand): CommandOutcome {
  switch (command.type) {
    case 'prompt':
      return { type: 'prompt', status: 'queued' };
    case 'stop':
      return { type: 'stop', stopped: false };
    case 'permission':
      return { type: 'permission', answered: false };
    case 'elicitation':
      return { type: 'elicitation', answered: false };
    default:
      return assertNever(command, 'UI command');
  }
}
