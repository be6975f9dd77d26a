/**
 * One served session: a prepared run (its transcript, tools, permissions), its turns, and the
 * log of the events it produced (capped: older events are folded into a view snapshot, see
 * eventLog.ts). The session subscribes to each turn's events ONCE; every tab
 * reads the log (what it missed, by event id) and then the live feed, so tabs share the run and
 * a tab that leaves changes nothing. Permission questions and MCP servers' questions go out as
 * events of the same log and wait for an answer over HTTP.
 *
 * Prompts, permission answers and Stop are UI commands on one command session (rxagent/ui's
 * `createCommandSession`, the same one an Rx app drives with `runCommands`): a prompt while a turn
 * runs is handed to that turn (queued, absorbed after its tool batch); one the turn can no longer
 * take starts the next turn. `interrupt()` (Stop) aborts the running turn (its terminal and
 * transcript are kept); `close()` ends it and releases the run.
 */
import { Subject, type Observable, type Subscription } from 'rxjs';
import { createAgentTreeRun } from '../agents/createAgentTreeRun.js';
import type { AgentRun } from '../loop/runHandle.js';
import type { PreparedRun } from '../cli/buildRun.js';
import type { TerminalEvent } from '../loop/types.js';
import type { MessageParam } from '../protocol/content.js';
import type { PermissionAnswer } from '../permissions/createPermissionPolicy.js';
import type { ElicitationChannel } from '../ui/elicitationChannel.js';
import type { PermissionChannel } from '../ui/permissionChannel.js';
import { createCommandSession, type CommandOutcome, type CommandSession } from '../ui/commandSession.js';
import type { QueuedPrompt, UiCommand } from '../ui/commands.js';
import type { ViewEvent } from '../ui/types.js';
import { localCommandOf } from '../cli/streamInput/localCommands.js';
import { compactTurn } from './compactTurn.js';
import { EventLog, type LoggedEvent } from './eventLog.js';

export type { LoggedEvent } from './eventLog.js';

export interface SessionInfoView {
  readonly sessionId: string;
  readonly model: string;
  readonly cwd: string;
  readonly running: boolean;
  readonly createdAt: number;
  readonly lastEventId: number;
  /** The first prompt, for a list. */
  readonly title: string;
  readonly pendingPermissions: number;
}

export interface PromptAnswer {
  /** 'joined': handed to the running turn; 'started': began a turn; 'queued': waits for the running turn to end. */
  readonly status: 'joined' | 'started' | 'queued';
  readonly commandId?: string;
}

/**
 * The terminal as the log keeps it: its final history cut to the last assistant message on (all
 * a view reads of it), so replaying a long session does not resend the history at every turn.
 */
function compactTerminal(event: TerminalEvent): TerminalEvent {
  const messages = event.messages;
  if (!messages) return event;
  let last = messages.length - 1;
  while (last > 0 && messages[last]!.role !== 'assistant') last--;
  return { ...event, messages: messages.slice(Math.max(0, last)) };
}

const titleOf = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}...` : text);

/** The typed text of a user message ('' for one that only carries tool results). */
function promptText(message: MessageParam): string {
  if (typeof message.content === 'string') return message.content.trim();
  return message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ').trim();
}

export class ServeSession {
  readonly createdAt = Date.now();
  private readonly log: EventLog;
  private readonly live = new Subject<LoggedEvent>();
  private readonly commands: CommandSession;
  private readonly commandEvents: Subscription;
  private title = '';
  private closed = false;
  private pending = new Set<string>();

  constructor(
    private readonly run: PreparedRun,
    private readonly permissions: PermissionChannel,
    private readonly now: () => number = Date.now,
    maxLogEvents?: number,
    private readonly elicitations?: ElicitationChannel,
  ) {
    this.log = new EventLog(maxLogEvents);
    this.commands = createCommandSession({ startTurn: (prompt, signal) => this.startTurn(prompt, signal), permissions, ...(elicitations ? { elicitations } : {}) });
    this.commandEvents = this.commands.events$.subscribe((event) => {
      if (event.type === 'permission_request') this.pending.add(event.requestId);
      else if (event.type === 'permission_settled') this.pending.delete(event.requestId);
      else if (event.type === 'terminal' && event.messages) this.run.history = event.messages;
      this.append(event);
    });
    // A resumed session shows what was said before.
    if (run.history.length > 0) this.append({ type: 'history', messages: run.history });
    // It goes by its first prompt in lists, as a new session does.
    const firstPrompt = run.history.find((m) => m.role === 'user' && promptText(m) !== '');
    if (firstPrompt) this.title = titleOf(promptText(firstPrompt));
  }

  get sessionId(): string {
    return this.run.sessionId;
  }

  info(): SessionInfoView {
    return {
      sessionId: this.run.sessionId,
      model: this.run.model,
      cwd: this.run.cwd,
      running: this.commands.running,
      createdAt: this.createdAt,
      lastEventId: this.log.lastEventId,
      title: this.title,
      pendingPermissions: this.pending.size,
    };
  }

  /** Events after `afterId` (what a reconnecting tab missed), then the live ones. */
  events(afterId: number): { readonly missed: readonly LoggedEvent[]; readonly live$: Observable<LoggedEvent> } {
    return { missed: this.log.since(afterId), live$: this.live.asObservable() };
  }

  /** Adds a note the loop did not emit (a warning while the run was being built, an internal failure). */
  warn(message: string): void {
    this.append({ type: 'warning', message, chainId: '', depth: 0 });
  }

  /** One UI command (a prompt, a permission answer, Stop), as an Rx app feeds `runCommands`. */
  command(command: UiCommand): CommandOutcome {
    if (this.closed) throw new Error('the session is closed');
    if (command.type === 'prompt' && this.title === '') this.title = titleOf(typeof command.input === 'string' ? command.input : promptText(command.input));
    return this.commands.dispatch(command);
  }

  prompt(text: string): PromptAnswer {
    const outcome = this.command({ type: 'prompt', input: text });
    return outcome.type === 'prompt' ? { status: outcome.status, ...(outcome.commandId ? { commandId: outcome.commandId } : {}) } : { status: 'queued' };
  }

  answer(requestId: string, answer: PermissionAnswer): boolean {
    if (this.closed) return false;
    const outcome = this.command({ type: 'permission', requestId, ...answer });
    return outcome.type === 'permission' && outcome.answered;
  }

  /** Stop: aborts the running turn; false when none runs. */
  interrupt(): boolean {
    if (this.closed) return false;
    const outcome = this.command({ type: 'stop' });
    return outcome.type === 'stop' && outcome.stopped;
  }

  /** Ends the running turn (terminal and transcript kept) and releases the run. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.permissions.denyAll('The server is stopping.');
    this.elicitations?.cancelAll();
    await this.commands.close();
    this.commandEvents.unsubscribe();
    this.live.complete();
    await this.run.close();
  }

  private append(event: ViewEvent): void {
    this.live.next(this.log.append(this.now(), event.type === 'terminal' ? compactTerminal(event) : event));
  }

  private startTurn(prompt: QueuedPrompt, signal: AbortSignal): AgentRun {
    // `/compact [instructions]` acts on the conversation, as in the terminal view; other text goes to the run.
    const text = typeof prompt.input === 'string' ? prompt.input : undefined;
    const local = text === undefined ? undefined : localCommandOf(text);
    if (text !== undefined && local?.name === 'compact') return compactTurn(this.run, text, local.instructions, signal);
    const agentRun = createAgentTreeRun(this.run.loopOptions(prompt.input, signal));
    return { events$: agentRun.events$.pipe(this.run.traceTurn()), submit: (input, options) => agentRun.submit(input, options) };
  }
}
