/**
 * The interactive prompt loop (no `-p`): read a prompt, run the turn with the live view, print
 * its summary, repeat. Ctrl-C during a turn interrupts it (the terminal and the transcript are
 * kept); Ctrl-C again, or Ctrl-C at the prompt, or end of input, leaves. Permission 'ask'
 * decisions become a y/n question when stdin is a terminal.
 *
 * Exit status: that of the last turn (0 when it succeeded), so `rxagent "prompt" </dev/null`
 * behaves like a one-shot command.
 */
import { homedir } from 'node:os';
import { createInterface, type Interface } from 'node:readline';
import { lastValueFrom, tap } from 'rxjs';
import { agentLoopWithSubagents } from '../../agents/agentTree.js';
import type { TerminalEvent } from '../../loop/types.js';
import type { PermissionAnswer, PermissionRequest } from '../../permissions/createPermissionPolicy.js';
import type { CliOptions } from '../args.js';
import { buildRun, type PreparedRun } from '../buildRun.js';
import { exitCodeOf } from '../output/resultLine.js';
import { createTerminalRenderer, summarizeToolInput } from './render.js';

export interface InteractiveIO {
  readonly input: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly output: NodeJS.WritableStream & { isTTY?: boolean };
}

export async function runInteractive(
  options: CliOptions,
  io: InteractiveIO = { input: process.stdin, output: process.stdout },
): Promise<number> {
  const write = (text: string) => void io.output.write(text);
  const color = io.output.isTTY === true;
  const canAsk = io.input.isTTY === true;
  let rl: Interface | undefined;

  const ask = (request: PermissionRequest): Promise<PermissionAnswer> =>
    new Promise((resolve) => {
      if (!rl) return resolve({ behavior: 'deny', message: 'Nobody could be asked for approval.' });
      const what = summarizeToolInput(request.toolName, request.input);
      const onAbort = () => resolve({ behavior: 'deny', message: 'The call was cancelled before the user answered.' });
      request.signal.addEventListener('abort', onAbort, { once: true });
      rl.question(`Allow ${request.toolName}${what ? ` ${what}` : ''}? (${request.reason}) [y/N] `, (answer) => {
        request.signal.removeEventListener('abort', onAbort);
        resolve(/^y(es)?$/i.test(answer.trim()) ? { behavior: 'allow' } : { behavior: 'deny', message: 'The user declined this call. Ask them how to proceed.' });
      });
    });

  const run: PreparedRun = await buildRun(options, {
    env: process.env,
    cwd: process.cwd(),
    homeDir: homedir(),
    platform: process.platform,
    interactive: canAsk,
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

  rl = createInterface({ input: io.input, output: io.output, terminal: canAsk });
  rl.on('line', (text) => {
    if (text.trim() === '') return canAsk ? rl?.prompt() : undefined;
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
    try {
      await lastValueFrom(
        agentLoopWithSubagents(run.loopOptions(prompt, controller.signal)).pipe(
          tap((event) => {
            write(renderer.render(event));
            if (event.type === 'terminal') terminal = event;
          }),
        ),
        { defaultValue: undefined },
      );
    } finally {
      current = undefined;
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
