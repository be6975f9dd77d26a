/**
 * The interactive view (no `-p`): read a prompt or a /command, run it, repeat.
 *
 * On a terminal (stdin and stdout both TTYs) it has a line editor (multi-line, bracketed paste,
 * history, Tab completion), live tool lines, Markdown rendering, permission questions and a
 * status line (ttyFrontEnd). Otherwise lines are read from stdin and plain text is written, with
 * no escape codes (pipedFrontEnd). Either way, a /command is handled here and never sent to the
 * model as text, and a line entered while a turn runs is handed to that turn (queued, absorbed
 * after the current tool batch) instead of waiting for a turn of its own.
 *
 * Esc interrupts the running turn (tools stop per their interruptBehavior; the transcript is
 * kept); Ctrl-C interrupts it too, and a second Ctrl-C, or one with nothing to interrupt, leaves;
 * Ctrl-D (or the end of piped input, once the running turn is done) leaves.
 *
 * Exit status: that of the last turn (0 when it succeeded), so `rxagent "prompt" </dev/null`
 * behaves like a one-shot command.
 */
import { homedir } from 'node:os';
import { styleText } from 'node:util';
import type { CliOptions } from '../args.js';
import { buildRun } from '../buildRun.js';
import { runBuiltin, SHOW_ONLY, type CommandContext } from './commandHandlers.js';
import { expandCustomCommand, loadCustomCommands } from './customCommands.js';
import { askInForm } from '../../mcp/elicitationForm.js';
import type { FrontEnd, FrontEndHandlers } from './frontEnd.js';
import { historyFile } from './inputHistory.js';
import { createLiveTools } from './liveTools.js';
import { createMarkdownStream, loadMarkdownRenderer, type RenderMarkdown } from './markdown.js';
import { createMcpApprover } from './mcpApproval.js';
import { createPermissionAsker } from './permissionAsker.js';
import type { Paint } from './permissionQuestion.js';
import { createPipedFrontEnd } from './pipedFrontEnd.js';
import type { TerminalRenderer } from './render.js';
import { addTotals, runTurn } from './runTurn.js';
import { completeCommand, mcpPromptCommands, parseInput, type BuiltinName } from './slashCommands.js';
import { statusLine } from './statusLine.js';
import { createTtyFrontEnd } from './ttyFrontEnd.js';
import { createViewSession, type ViewSession } from './viewSession.js';

export interface InteractiveIO {
  readonly input: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly output: NodeJS.WritableStream & { isTTY?: boolean };
}

export async function runInteractive(
  options: CliOptions,
  io: InteractiveIO = { input: process.stdin, output: process.stdout },
): Promise<number> {
  const terminal = io.input.isTTY === true && io.output.isTTY === true;
  const paint: Paint = (style, text) => (terminal ? styleText(style, text) : text);
  const cwd = process.cwd();
  const homeDir = homedir();
  const custom = loadCustomCommands(cwd);
  const live = createLiveTools();

  let session: ViewSession | undefined;
  let renderer: TerminalRenderer | undefined;
  const pending: string[] = options.prompt !== undefined ? [options.prompt] : [];
  let ended = false;
  let wake: (() => void) | undefined;
  /** The running turn or command (Esc and Ctrl-C abort it). */
  let current: AbortController | undefined;
  let turnRunning = false;
  let interrupts = 0;
  let submitToTurn: ((text: string) => boolean) | undefined;
  let frontEnd: FrontEnd | undefined;
  const print = (text: string) => frontEnd?.print(text);

  /** Aborted when the view leaves: a question asked before the session exists (MCP approval) goes away. */
  const leaving = new AbortController();
  const leave = () => {
    ended = true;
    leaving.abort();
    pending.length = 0;
    current?.abort();
    wake?.();
  };
  const interrupt = (how: string) => {
    if (!current) return;
    interrupts += 1;
    print(`${paint('yellow', `(${how}; Ctrl-C again to exit)`)}\n`);
    current.abort();
  };
  const handlers: FrontEndHandlers = {
    submit: (text) => onSubmit(text),
    escape: () => {
      if (current && interrupts === 0) interrupt('interrupted by Esc');
    },
    interrupt: () => (current && interrupts === 0 ? interrupt('interrupting') : leave()),
    // At a terminal Ctrl-D leaves now; the end of piped input lets the queued work finish.
    exit: () => (terminal ? leave() : ((ended = true), wake?.())),
  };

  frontEnd = terminal
    ? createTtyFrontEnd({
        input: io.input as NodeJS.ReadStream,
        output: io.output as NodeJS.WriteStream,
        handlers,
        live,
        status: () =>
          session
            ? statusLine({ model: session.run.model, permissionMode: session.run.permissionMode, contextTokens: session.contextTokens, costUsd: session.totals.costUsd })
            : '',
        pending: () => renderer?.pendingText() ?? '',
        complete: (text) => completeCommand(text, custom.commands, mcpPromptCommands(session?.run.slashCommands ?? [])),
        historyFile: historyFile(homeDir, cwd),
        onWarning: (message) => print(`${paint('yellow', `warning: ${message}`)}\n`),
      })
    : createPipedFrontEnd({ input: io.input, output: io.output, handlers });
  const view = frontEnd;
  const asker = createPermissionAsker({ frontEnd: view, match: { cwd, homeDir }, paint, answered: (id, at) => live.restart(id, at) });
  const onWarning = (message: string) => print(`${paint('yellow', `warning: ${message}`)}\n`);
  // Someone at the terminal decides about the project's unapproved MCP servers; piped, they stay off.
  const approveMcpServers = view.interactive ? createMcpApprover({ frontEnd: view, paint, cwd, onWarning, signal: leaving.signal }) : undefined;
  const build = (opts: CliOptions, how?: { readonly sessionStartSource?: 'clear' }) =>
    buildRun(opts, {
      ...how,
      env: process.env,
      cwd,
      homeDir,
      platform: process.platform,
      interactive: view.interactive,
      interactiveView: true,
      ask: asker.ask,
      // An MCP server asking the user (elicitation) gets a form in the view.
      onElicitation: askInForm(view),
      ...(approveMcpServers ? { approveMcpServers } : {}),
      onWarning,
    });

  function onSubmit(text: string): void {
    const parsed = parseInput(text, custom.commands);
    if (turnRunning) {
      if (parsed.type === 'builtin' && parsed.name === 'exit') return leave();
      if (parsed.type === 'builtin' && SHOW_ONLY.has(parsed.name)) return void runCommand(parsed.name, parsed.args, new AbortController());
      if (parsed.type === 'prompt' && submitToTurn?.(text)) {
        const shown = text.length > 60 ? `${text.slice(0, 57)}...` : text;
        return print(`${paint('dim', `(queued for the running turn: ${shown.replace(/\n/g, ' ')})`)}\n`);
      }
      if (parsed.type !== 'prompt') print(`${paint('dim', `(${text.trim().split(/\s/)[0]} runs when this turn ends)`)}\n`);
    }
    pending.push(text);
    wake?.();
  }

  async function runCommand(name: BuiltinName, args: string, controller: AbortController): Promise<void> {
    if (!session) return;
    const ctx: CommandContext = { session, frontEnd: view, paint, custom: custom.commands, env: process.env, homeDir, signal: controller.signal, exit: leave };
    try {
      await runBuiltin(name, args, ctx);
    } catch (error) {
      print(`${paint('red', `/${name}: ${(error as Error).message}`)}\n`);
    }
  }

  let lastCode = 0;
  const turn = async (prompt: string): Promise<void> => {
    if (!session) return;
    const controller = new AbortController();
    current = controller;
    turnRunning = true;
    interrupts = 0;
    view.busy(terminal ? 'working · Esc to interrupt' : '');
    const markdown = markdownRenderer ? createMarkdownStream(markdownRenderer, view.columns) : undefined;
    // `--timeout` (off by default here): each turn gets the deadline, ending it as Esc would.
    const deadlineMs = options.timeoutMs;
    const deadline = deadlineMs === undefined ? undefined : setTimeout(() => interrupt(`the turn passed --timeout ${deadlineMs / 1000} s`), deadlineMs);
    try {
      const outcome = await runTurn(session.run, prompt, controller.signal, {
        color: terminal,
        ...(markdown ? { markdown } : {}),
        live,
        print,
        started: (submit, r) => {
          submitToTurn = submit;
          renderer = r;
        },
        waitedMs: asker.waitedMs,
        returned: (text) => pending.push(text),
        contextUsed: (tokens) => session && (session.contextTokens = tokens),
      });
      session.totals = addTotals(session.totals, outcome.terminal);
      lastCode = outcome.code;
    } finally {
      clearTimeout(deadline);
      current = undefined;
      turnRunning = false;
      submitToTurn = undefined;
      renderer = undefined;
    }
  };
  const markdownRenderer: RenderMarkdown | undefined = terminal ? await loadMarkdownRenderer() : undefined;

  const handle = async (text: string): Promise<void> => {
    if (!terminal) print(`❯ ${text}\n`);
    const parsed = parseInput(text, custom.commands);
    switch (parsed.type) {
      case 'prompt':
        return turn(text);
      case 'custom':
        return turn(expandCustomCommand(parsed.command, parsed.args));
      case 'unknown':
        // An MCP server's prompt (`/mcp__<server>__<prompt> args`): the turn's prompt expansion asks the server.
        if (session && mcpPromptCommands(session.run.slashCommands).some((c) => c.name === parsed.name)) return turn(text);
        return print(`Unknown command: /${parsed.name}. Type /help for the commands.\n`);
      case 'builtin': {
        const controller = new AbortController();
        current = controller;
        interrupts = 0;
        view.busy(`/${parsed.name} · Esc to cancel`);
        try {
          return await runCommand(parsed.name, parsed.args, controller);
        } finally {
          current = undefined;
        }
      }
    }
  };

  process.on('SIGTERM', leave);
  try {
    session = createViewSession(await build(options), options, build);
    custom.warnings.forEach((w) => print(`${paint('yellow', `warning: ${w}`)}\n`));
    print(`rxagent ${session.run.model} in ${session.run.cwd} (session ${session.run.sessionId})\n`);
    if (terminal) print(paint('dim', 'Type a request, or /help for commands. Esc interrupts a turn; Ctrl-D exits.\n'));
    for (;;) {
      const next = pending.shift();
      if (next !== undefined) {
        await handle(next);
        continue;
      }
      if (ended) break;
      view.idle();
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    process.off('SIGTERM', leave);
    view.close();
    await session?.run.close();
  }
  return lastCode;
}
