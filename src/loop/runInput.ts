/**
 * The input side of one run: submitted commands waiting to be absorbed, the ones absorbed and
 * not yet settled, and the interrupt switch. `createAgentRun` and the agent tree push into it;
 * the iteration absorbs from it after a tool batch (SPEC §9).
 */
import { Subject, type Observable } from 'rxjs';
import type { MessageParam, TextBlock } from '../protocol/content.js';
import type { CommandStatus, LoopEvent, QueryTracking } from './types.js';

export interface QueuedCommand {
  readonly id: string;
  readonly content: readonly TextBlock[];
  readonly interrupt: boolean;
}

/**
 * One piece of user input for a running loop (`agentLoop({ input$ })`): absorbed after the
 * current tool batch, or, with `interrupt`, cutting the current iteration when it may.
 */
export interface Submission {
  readonly id: string;
  readonly input: string | MessageParam;
  readonly interrupt?: boolean;
}

/** A submission as the command the queue keeps (its text blocks; non-text parts dropped). */
export function commandOf(submission: Submission): QueuedCommand {
  return { id: submission.id, content: toBlocks(submission.input), interrupt: submission.interrupt ?? false };
}

/** A submission as the text blocks absorbed into the next user message (non-text parts dropped). */
export function toBlocks(input: string | MessageParam): TextBlock[] {
  if (typeof input === 'string') return [{ type: 'text', text: input }];
  if (typeof input.content === 'string') return [{ type: 'text', text: input.content }];
  return input.content.flatMap((b) => (b.type === 'text' ? [{ type: 'text' as const, text: b.text }] : []));
}

export interface RunInput {
  /** Tracking of the current iteration, for lifecycle events produced outside it. */
  tracking: QueryTracking;
  /** Submitted input not yet absorbed, in order. */
  readonly queue: QueuedCommand[];
  /** Absorbed commands whose consuming turn has not ended yet; `seen` once a request carried them. */
  readonly started: { readonly id: string; seen: boolean }[];
  /**
   * Fires when an interrupting submission cancels the current iteration (only while it is
   * interruptible: streaming, or every running tool is 'cancel'). The run goes on with the input.
   */
  readonly interrupt$: Subject<void>;
  /** Kept up to date by the tool scheduler of the current iteration. */
  interruptible: boolean;
  /**
   * Set when the terminal is about to be delivered: the queue has just been settled, so later
   * submissions are refused (`accepted: false`) instead of being queued and never answered.
   */
  inputClosed: boolean;
  /** Lifecycle events produced outside an iteration (e.g. `queued`), drained into the output. */
  readonly lifecycle$: Observable<{ readonly id: string; readonly status: CommandStatus }>;
  reportLifecycle(id: string, status: CommandStatus): void;
  /**
   * The one submission router (createAgentRun, the agent tree, `input$`): queues the command,
   * reports it `queued`, and interrupts the iteration when it may. False once the input closed.
   */
  receive(command: QueuedCommand): boolean;
  /** Takes the whole queue: its content, and a `started` event per command. */
  absorb(): { readonly content: readonly TextBlock[]; readonly events: readonly LoopEvent[] };
  /** A request is about to carry the absorbed commands. */
  markSeen(): void;
  dispose(): void;
}

export function createRunInput(tracking: QueryTracking): RunInput {
  const lifecycle = new Subject<{ readonly id: string; readonly status: CommandStatus }>();
  const input: RunInput = {
    tracking,
    queue: [],
    started: [],
    interrupt$: new Subject<void>(),
    interruptible: true,
    inputClosed: false,
    lifecycle$: lifecycle.asObservable(),
    reportLifecycle: (id, status) => lifecycle.next({ id, status }),
    receive(command) {
      if (input.inputClosed) return false;
      input.queue.push(command);
      lifecycle.next({ id: command.id, status: 'queued' });
      if (command.interrupt && input.interruptible) input.interrupt$.next();
      return true;
    },
    absorb() {
      const items = input.queue.splice(0);
      const { chainId, depth } = input.tracking;
      const events: LoopEvent[] = items.map((item) => {
        input.started.push({ id: item.id, seen: false });
        return { type: 'command_lifecycle', id: item.id, status: 'started', chainId, depth };
      });
      return { content: items.flatMap((item) => item.content), events };
    },
    markSeen() {
      for (const command of input.started) command.seen = true;
    },
    dispose: () => lifecycle.complete(),
  };
  return input;
}
