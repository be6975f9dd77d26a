/**
 * The interactive prompt loop (no `-p`): read a prompt, run the turn with the live view, print
 * its summary, repeat. A line typed while a turn runs is submitted to it (`createAgentTreeRun`):
 * queued and absorbed after the current tool batch, so the model sees it in its next request
 * (while the turn waits for background subagents, it goes on at once with the line); a line the
 * turn could not take (it was ending) starts the next turn. Ctrl-C during a turn aborts
 * it (tools per their interruptBehavior, the terminal and the transcript are kept); Ctrl-C again,
 * or Ctrl-C at the prompt, or end of input, leaves. Permission 'ask' decisions become a y/n
 * question when stdin is a terminal. On a terminal each running tool has a live line with its
 * elapsed time; piped output gets plain start/finish lines only.
 *
 * The Agent tool is offered as in print mode (unless `--tools` leaves it out), with the same
 * per-child permission policy and transcripts (`buildRun`). A subagent's own tool calls are not
 * drawn as lines of the parent's; its Agent call has a line until it ends.
 *
 * Exit status: that of the last turn (0 when it succeeded), so `rxagent "prompt" </dev/null`
 * behaves like a one-shot command.
 */
import { homedir } from 'node:os';
import { clearScreenDown, createInterface, moveCursor, type Interface } from 'node:readline';
import { interval, lastValueFrom, tap } from 'rxjs';
import { createAgentTreeRun } from '../../agents/createAgentTreeRun.js';
import type { TerminalEvent } from '../../loop/types.js';
import type { PermissionAnswer, PermissionRequest } from '../../permissions/createPermissionPolicy.js';
import type { CliOptions } from '../args.js';
import { buildRun, type PreparedRun } from '../buildRun.js';
import { exitCodeOf } from '../output/resultLine.js';
import { createLiveTools } from './liveTools.js';
import { createTerminalRenderer, summarizeToolInput } from './render.js';

export interface InteractiveIO {
  readonly input: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly output: NodeJS.WritableStream & { isTTY?: boolean };
}

export async function runInteractive(
  options: CliOptions,
  io: InteractiveIO = { input: process.stdin, output: process.stdout },
): Promise<number> {
  const color = io.output.isTTY === true;
  const canAsk = io.input.isTTY === true;
  let rl: Interface | undefined;

  // Live tool lines (terminal only): drawn below everything else, erased before any other output.
  const live = createLiveTools();
  let liveDrawn = 0;
  /** False outside a turn and while a permission question is open. */
  let liveAllowed = false;
  /** Live lines are drawn only below complete lines (never after streamed text mid-line). */
  let atLineStart = () => true;
  const eraseLive = () => {
    if (liveDrawn === 0) return;
    moveCursor(io.output, 0, -liveDrawn);
    clearScreenDown(io.output);
    liveDrawn = 0;
  };
  const drawLive = () => {
    if (!color || !liveAllowed || live.size === 0 || !atLineStart()) return;
    const lines = live.lines(Date.now());
    io.output.write(lines.map((l) => `${l}\n`).join(''));
    liveDrawn = lines.length;
  };
  const write = (text: string) => {
    if (text === '') return;
    eraseLive();
    io.output.write(text);
    drawLive();
  };

  const ask = (request: PermissionRequest): Promise<PermissionAnswer> =>
    new Promise((resolve) => {
      if (!rl) return resolve({ behavior: 'deny', message: 'Nobody could be asked for approval.' });
      const what = summarizeToolInput(request.toolName, request.input);
      const onAbort = () => resolve({ behavior: 'deny', message: 'The call was cancelled before the user answered.' });
      request.signal.addEventListener('abort', onAbort, { once: true });
      eraseLive();
      liveAllowed = false;
      rl.question(`Allow ${request.toolName}${what ? ` ${what}` : ''}? (${request.reason}) [y/N] `, (answer) => {
        request.signal.removeEventListener('abort', onAbort);
        liveAllowed = current !== undefined;
        resolve(/^y(es)?$/i.test(answer.trim()) ? { behavior: 'allow' } : { behavior: 'deny', message: 'The user declined this call. Ask them how to proceed.' });
      });
    });

  const run: PreparedRun = await buildRun(options, {
    env: process.env,
    cwd: process.cwd(),
    homeDir: homedir(),
    platform: process.platform,
    interactive: canAsk,
    interactiveView: true,
    ask,
    onWarning: (message) => write(`warning: ${message}\n`),
  });

  write(`rxagent ${run.model} in ${run.cwd} (session ${run.sessionId})\n`);
  if (canAsk) write('Type a request and press Enter. Ctrl-C interrupts a turn; twice, or at the prompt, exits.\n');

  let lastCode = 0;
  let current: AbortController | undefined;
  let interrupts = 0;
  let ended = false;
  const pending: string[] = options.prompt !== undefined ? [options.prompt] : [];
  let wake: (() => void) | undefined;
  /** Hands a line to the running turn; false when there is none or it no longer takes input. */
  let submitToTurn: ((text: string) => boolean) | undefined;

  rl = createInterface({ input: io.input, output: io.output, terminal: canAsk });
  rl.on('line', (text) => {
    if (text.trim() === '') return canAsk ? rl?.prompt() : undefined;
    if (submitToTurn?.(text)) {
      const shown = text.length > 60 ? `${text.slice(0, 57)}...` : text;
      write(`${atLineStart() ? '' : '\n'}(queued for the running turn: ${shown})\n`);
      return;
    }
    pending.push(text);
    wake?.();
  });
  rl.on('close', () => {
    ended = true;
    // At a terminal, Ctrl-D means "leave now"; the end of piped input lets the running turn finish.
    if (canAsk) current?.abort();
    wake?.();
  });
  const onInterrupt = () => {
    if (current && interrupts === 0) {
      interrupts += 1;
      write('\n(interrupting; Ctrl-C again to exit)\n');
      current.abort();
      return;
    }
    ended = true;
    current?.abort();
    rl?.close();
  };
  rl.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  if (!canAsk) process.on('SIGINT', onInterrupt);

  const runTurn = async (prompt: string): Promise<number> => {
    const renderer = createTerminalRenderer({ color });
    const controller = new AbortController();
    current = controller;
    interrupts = 0;
    let terminal: TerminalEvent | undefined;
    const agentRun = createAgentTreeRun(run.loopOptions(prompt, controller.signal));
    const submitted = new Map<string, string>();
    submitToTurn = (text) => {
      const handle = agentRun.submit(text);
      if (handle.accepted) submitted.set(handle.id, text);
      return handle.accepted;
    };
    atLineStart = renderer.atLineStart;
    liveAllowed = true;
    const ticker = color
      ? interval(200).subscribe(() => {
          eraseLive();
          drawLive();
        })
      : undefined;
    try {
      await lastValueFrom(
        agentRun.events$.pipe(
          tap((event) => {
            if (event.type === 'tool_start') live.start(event.toolUseId, `${event.name} ${summarizeToolInput(event.name, event.input)}`.trim(), Date.now());
            if (event.type === 'tool_result') live.finish(event.toolUseId);
            // A submission the turn ended before absorbing is not lost: it becomes the next turn.
            if (event.type === 'command_lifecycle' && event.status === 'discarded') {
              const text = submitted.get(event.id);
              if (text !== undefined) pending.push(text);
            }
            write(renderer.render(event));
            if (event.type === 'terminal') terminal = event;
          }),
        ),
        { defaultValue: undefined },
      );
    } finally {
      ticker?.unsubscribe();
      submitToTurn = undefined;
      current = undefined;
      eraseLive();
      liveAllowed = false;
    }
    if (!terminal) throw new Error('the agent loop ended without a terminal event');
    if (terminal.messages) run.history = terminal.messages;
    return exitCodeOf(terminal.reason);
  };

  try {
    for (;;) {
      const next = pending.shift();
      if (next !== undefined) {
        if (!canAsk) write(`> ${next}\n`);
        lastCode = await runTurn(next);
        continue;
      }
      if (ended) break;
      if (canAsk) {
        rl.setPrompt('> ');
        rl.prompt();
      }
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    process.off('SIGTERM', onInterrupt);
    process.off('SIGINT', onInterrupt);
    rl.close();
    await run.close();
  }
  return lastCode;
}
