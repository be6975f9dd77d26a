/**
 * `--input-format stream-json`: one process serves a whole conversation for a host (the Claude
 * Agent SDK). stdin carries JSON lines: `user` messages (each one a turn, printed `system/init`
 * ... `result`), control requests to us (`initialize`, `interrupt`, `set_permission_mode`, ...)
 * and the host's answers to ours (`can_use_tool`, `hook_callback`).
 *
 * - A first `initialize` is read before the run is built, so its hooks, system prompt, agents
 *   and schema take effect as flags would; every other line waits meanwhile, nothing is lost.
 * - A user message that arrives while a turn runs joins that turn when it still takes input,
 *   otherwise it starts the next turn when this one has printed its result.
 * - Malformed or unknown lines: a `system/warning` line naming the problem, and the session goes on.
 * - stdin ends: our waiting requests to the host fail at once (the tool is refused, the hook
 *   counts as failed), the running and queued turns finish, and the process ends.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { MessageParam } from '../../protocol/content.js';
import type { McpServerConfig } from '../../mcp/config.js';
import type { LoopEvent } from '../../loop/types.js';
import type { CliOptions } from '../args.js';
import type { FlagRules, PreparedRun, RunEnvironment } from '../buildRun.js';
import type { OutputLine } from '../outputSchemas.js';
import { answerControlRequest, controlResponseLine, type SessionControls } from './controlRequests.js';
import { createControlChannel } from './controlChannel.js';
import { hostHooksConfig } from './hostHooks.js';
import { createHostElicitation } from './hostElicitation.js';
import { createHostPermissionAsk, ruleText } from './hostPermission.js';
import { appliedFields, initializeAnswer, initializeRequestSchema, optionsWithInitialize } from './initialize.js';
import { parseInputLine, type InputLine } from './inputLines.js';
import { createHostMcpServers, mcpControlOf, setHostMcpServers } from './hostMcpServers.js';
import { startTurn, type RunningTurn } from './runTurn.js';
import { createSessionTotals } from '../output/runMapper.js';
import { startCompactTurn } from './compactTurn.js';
import { startClearTurn } from './clearTurn.js';
import { startReportTurn } from './reportTurn.js';
import { contextUsage, contextUsageResponse } from './contextUsage.js';
import { localCommandOf } from './localCommands.js';
import { sessionCostResponse, usageResponse } from './usageAnswers.js';
import { readFileForHost, seedReadState } from './hostFiles.js';
import { createFileCheckpoints } from './fileCheckpoints.js';

export interface StreamJsonIO {
  readonly stdin: NodeJS.ReadableStream;
  readonly writeOut: (text: string) => void;
  readonly writeErr: (text: string) => void;
  /** Bound on each answer the host owes us (default `DEFAULT_HOST_TIMEOUT_MS`). */
  readonly hostTimeoutMs?: number;
  /** Sees every loop event of every turn (the debug log). */
  readonly onEvent?: (event: LoopEvent) => void;
  /** Keep file checkpoints per user message, for `rewind_files` (the SDK's enableFileCheckpointing). */
  readonly fileCheckpointing?: boolean;
}

/** Builds the run from options and the session's extra environment (host hooks, host ask). */
export type BuildStreamRun = (
  options: CliOptions,
  extra: Pick<RunEnvironment, 'extraHooks' | 'extraMcpServers' | 'ask' | 'interactive' | 'onDenial' | 'onElicitation' | 'sessionStartSource' | 'beforeWrite'>,
) => Promise<PreparedRun>;

function workspaceOf(run: PreparedRun) {
  if (!run.workspace) throw new Error('this run has no file tools');
  return run.workspace;
}

export async function runStreamJson(options: CliOptions, build: BuildStreamRun, io: StreamJsonIO): Promise<number> {
  const send = (line: Record<string, unknown> | OutputLine) => io.writeOut(JSON.stringify(line) + '\n');
  const channel = createControlChannel({ send, newRequestId: randomUUID, ...(io.hostTimeoutMs === undefined ? {} : { timeoutMs: io.hostTimeoutMs }) });
  const reader = createInterface({ input: io.stdin, crlfDelay: Infinity });
  const backlog: InputLine[] = [];
  let deliver: ((line: InputLine) => void) | undefined;
  let stdinEnded = false;
  let onEnd: (() => void) | undefined;
  const firstLine = new Promise<InputLine | undefined>((resolve) => {
    reader.on('line', (text) => {
      const line = parseInputLine(text);
      // Answers to our requests never wait: a hook callback may be answered while the run is built.
      if (line.kind === 'control_response') return void channel.receive(line.line);
      if (deliver) deliver(line);
      else backlog.push(line);
      resolve(backlog[0]);
    });
    reader.on('close', () => {
      stdinEnded = true;
      channel.close('stdin was closed');
      resolve(backlog[0]);
      onEnd?.();
    });
  });

  const first = await firstLine;
  const init = first?.kind === 'control_request' && first.line.request.subtype === 'initialize' ? initializeRequestSchema.safeParse(first.line.request) : undefined;
  if (init) backlog.shift();
  const warn = (message: string) => {
    io.writeErr(`rxagent: warning: ${message}\n`);
    send({ type: 'system', subtype: 'warning', session_id: runRef?.sessionId ?? '', uuid: randomUUID(), message });
  };
  let runRef: PreparedRun | undefined;
  let current: RunningTurn | undefined;
  // `composed`: the host's own text (client_composed), sent as written: never a /command.
  const queue: Array<{ message: MessageParam; uuid: string | undefined; composed: boolean }> = [];
  const hostHooks = init?.success && init.data.hooks ? hostHooksConfig(init.data.hooks, channel) : undefined;
  // --permission-prompts none (the SDK's permissionPrompts): nobody answers, so the host is never asked.
  const stdio = options.permissionPromptTool === 'stdio' && options.permissionPrompts !== 'none';
  // What the host changed during the process: a /clear's fresh session keeps it (Claude Code's
  // model, mode and "always allow" rules are the process's, not the conversation's).
  const carried: { model?: string | undefined; thinking?: number | null; rules: Array<{ behavior: 'allow' | 'deny' | 'ask'; rules: string[] }>; flagRules?: FlagRules; mcpServers?: Record<string, McpServerConfig>; mcpDisabled: Set<string> } = { rules: [], mcpDisabled: new Set() };
  const sessionOptions = init?.success ? optionsWithInitialize(options, init.data) : options;
  // The host's in-process MCP servers (only a host that sent initialize has any).
  const sdkServers = init?.success ? createHostMcpServers(init.data.sdkMcpServers ?? [], channel) : undefined;
  // One set of checkpoints for the process: a /clear's new session can still rewind the old one's files.
  const checkpoints = io.fileCheckpointing ? createFileCheckpoints() : undefined;
  const extra: Parameters<BuildStreamRun>[1] = {
    ...(checkpoints ? { beforeWrite: (path: string) => checkpoints.beforeWrite(path) } : {}),
    ...(hostHooks ? { extraHooks: hostHooks.hooks } : {}),
    ...(sdkServers ? { extraMcpServers: sdkServers.configs() } : {}),
    interactive: stdio,
    onDenial: (denial) => current?.mapper.recordDenial(denial),
    // An SDK host (it sent initialize) is asked an MCP server's questions, as Claude Code asks it.
    ...(init?.success ? { onElicitation: createHostElicitation(channel, (m) => warn(m)) } : {}),
    ...(stdio
      ? {
          ask: createHostPermissionAsk({
            channel,
            onInterrupt: () => current?.interrupt(),
            onPermissionUpdates: (updates) => {
              for (const u of updates) {
                if (u.type !== 'addRules' || !u.rules || !u.behavior) continue;
                const rules = u.rules.map(ruleText);
                carried.rules.push({ behavior: u.behavior, rules });
                run.addSessionRules(u.behavior, rules);
              }
            },
          }),
        }
      : {}),
  };
  let run = await build(sessionOptions, extra);
  runRef = run;
  /** The running totals of the session's result lines; a /clear starts new ones (as the SDK documents). */
  let totals = createSessionTotals(run.maxOutputTokens, (await run.spentBefore?.()) ?? []);
  /** A /clear's new session: a new id, nothing resumed, and what the host changed carried over. */
  const freshRun = async (): Promise<PreparedRun> => {
    const next = await build(
      { ...sessionOptions, sessionId: randomUUID(), resume: undefined, continue: false, forkSession: false, resumeSessionAt: undefined, permissionMode: run.permissionMode, permissionModeGiven: true },
      { ...extra, sessionStartSource: 'clear' },
    );
    if ('model' in carried) next.setModel(carried.model);
    if (carried.thinking !== undefined) next.setMaxThinkingTokens(carried.thinking);
    for (const r of carried.rules) next.addSessionRules(r.behavior, r.rules);
    if (carried.flagRules) next.setFlagRules(carried.flagRules);
    // The host's mcp_set_servers servers are the process's too (a failed one is in the answer it already got).
    if (carried.mcpServers) await next.mcpControl?.replaceServers(carried.mcpServers);
    // A server the host switched off stays off (Claude Code keeps mcp_toggle for the process).
    for (const name of carried.mcpDisabled) await next.mcpControl?.setEnabled(name, false).catch(() => undefined);
    return next;
  };
  const reopenRun = (sessionId: string, mode: PreparedRun['permissionMode']) =>
    build({ ...sessionOptions, sessionId: undefined, resume: sessionId, continue: false, forkSession: false, resumeSessionAt: undefined, permissionMode: mode, permissionModeGiven: true }, extra);
  const controls: SessionControls = {
    initializeResponse: () => initializeAnswer(run, { hooksApplied: hostHooks !== undefined, ...(init?.success ? { applied: appliedFields(init.data, options) } : {}) }),
    interrupt: () => {
      current?.interrupt();
      return queue.flatMap((q) => (q.uuid ? [q.uuid] : []));
    },
    setPermissionMode: (mode) => run.setPermissionMode(mode),
    setModel: (model) => {
      carried.model = model;
      run.setModel(model);
    },
    setMaxThinkingTokens: (tokens) => {
      carried.thinking = tokens;
      run.setMaxThinkingTokens(tokens);
    },
    mcpStatus: () => (run.mcpServers ?? []).map((s) => ({ name: s.name, status: s.status, ...(s.serverInfo ? { serverInfo: s.serverInfo } : {}) })),
    contextUsage: () => contextUsageResponse(contextUsage(run, totals.lastUsage), run.agents.map((a) => a.name)),
    usage: () => usageResponse(totals, Date.now()),
    sessionCost: () => sessionCostResponse(totals, Date.now()),
    readFile: (request) => readFileForHost(workspaceOf(run), request),
    seedReadState: async (path, mtime) => void (await seedReadState(workspaceOf(run), path, mtime)),
    cancelQueued: (uuid) => {
      const at = queue.findIndex((q) => q.uuid === uuid);
      if (at >= 0) queue.splice(at, 1);
      return at >= 0;
    },
    mcpServerMessage: (name, message) => sdkServers?.deliver(name, message as unknown as JSONRPCMessage) ?? false,
    hooksListing: () => (run.hooksListing ? run.hooksListing() : Promise.reject(new Error('this run keeps no hooks listing'))),
    rewindFiles: async (messageId, dryRun) =>
      checkpoints
        ? { ...(await checkpoints.rewind(messageId, dryRun)) }
        : { canRewind: false, error: 'file checkpointing is off: start the session with enableFileCheckpointing (CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true)' },
    settings: () => (run.settingsView ? run.settingsView() : Promise.reject(new Error('this run keeps no settings view'))),
    permissionRules: () => (run.permissionRules ? run.permissionRules() : Promise.reject(new Error('this run keeps no permission rules'))),
    applyFlagSettings: (change) => {
      if (change.model !== undefined) controls.setModel(change.model ?? undefined);
      if (change.rules) {
        carried.flagRules = change.rules;
        run.setFlagRules(change.rules);
      }
    },
    mcpSetServers: (servers) => setHostMcpServers(run, servers, sdkServers, (applied) => (carried.mcpServers = applied)),
    mcpReconnect: async (name) => void (await mcpControlOf(run).reconnect(name)),
    mcpToggle: async (name, enabled) => {
      await mcpControlOf(run).setEnabled(name, enabled);
      if (enabled) carried.mcpDisabled.delete(name);
      else carried.mcpDisabled.add(name);
    },
    mcpReadResource: async (name, uri) => ({ ...(await mcpControlOf(run).readResource(name, uri)) }),
  };
  if (init && first?.kind === 'control_request') {
    const issues = init.success ? '' : init.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    send(controlResponseLine(first.line.request_id, init.success ? { ok: controls.initializeResponse() } : { error: `initialize: ${issues}` }));
    for (const event of hostHooks?.unsupported ?? []) warn(`hook event ${event} is not supported; the host's callbacks for it never fire`);
  }

  const turnDeadlineMs = options.timeoutMs;
  let lastCode: 0 | 1 = 0;
  const finished = new Promise<void>((resolve) => {
    const next = () => {
      if (current) return;
      const item = queue.shift();
      if (!item) {
        if (stdinEnded) resolve();
        return;
      }
      const turn = startTurnFor(item);
      current = turn;
      void turn.done.then((code) => {
        lastCode = code;
        current = undefined;
        next();
      });
    };
    const startTurnFor = (item: (typeof queue)[number]): RunningTurn => {
      const local = item.composed ? undefined : localCommandOf(item.message);
      if (local?.name === 'compact') return startCompactTurn({ run, instructions: local.instructions, emit: send, totals });
      if (local?.name === 'cost' || local?.name === 'context' || local?.name === 'interactive_only') return startReportTurn({ run, command: local, totals, emit: send });
      if (local?.name === 'clear') {
        const cleared = run;
        return startClearTurn({
          run: cleared,
          fresh: freshRun,
          reopen: () => reopenRun(cleared.sessionId, cleared.permissionMode),
          onRun: (next) => {
            if (next.sessionId !== cleared.sessionId) totals = createSessionTotals(next.maxOutputTokens);
            run = next;
            runRef = next;
          },
          emit: send,
          userMessageUuid: item.uuid,
        });
      }
      return startTurn({
        run,
        prompt: item.message,
        verbatim: item.composed,
        includePartialMessages: options.includePartialMessages,
        emit: send,
        totals,
        ...(io.onEvent ? { onEvent: io.onEvent } : {}),
        // --timeout bounds each turn here (one message, as one -p run), not the whole conversation.
        ...(turnDeadlineMs === undefined ? {} : { deadlineMs: turnDeadlineMs, onDeadline: () => warn(`the turn passed its deadline of ${turnDeadlineMs / 1000} s (--timeout) and was interrupted`) }),
      });
    };
    onEnd = next;
    const handle = (line: InputLine) => {
      switch (line.kind) {
        case 'user': {
          // One uuid per message: the replayed line's is the one rewind_files names.
          const uuid = line.uuid ?? randomUUID();
          if (options.replayUserMessages) {
            send({ type: 'user', message: line.message, session_id: run.sessionId, uuid, parent_tool_use_id: null, isReplay: true });
          }
          checkpoints?.begin(uuid);
          // A /compact or /clear waits for the running turn: it acts on the conversation, it is not input to it.
          if (current && queue.length === 0 && (line.composed || localCommandOf(line.message) === undefined) && current.submit(line.message)) return;
          queue.push({ message: line.message, uuid, composed: line.composed });
          return next();
        }
        case 'control_request': {
          const requestId = line.line.request_id;
          const answer = answerControlRequest(line.line, controls);
          if (!(answer instanceof Promise)) return send(controlResponseLine(requestId, answer));
          return void answer.then((settled) => send(controlResponseLine(requestId, settled)));
        }
        case 'control_response':
          return void channel.receive(line.line);
        case 'control_cancel':
        case 'ignored':
          return;
        case 'malformed':
          return warn(`stdin line ignored: ${line.message}`);
        case 'unknown':
          return warn(`stdin line of unknown type ${JSON.stringify(line.type)} ignored`);
      }
    };
    deliver = handle;
    for (const line of backlog.splice(0)) handle(line);
    next();
  });
  await finished;
  reader.close();
  return lastCode;
}
