/**
 * Everything one `rxagent` invocation needs, built from the parsed options and the environment:
 * the model client, the built-in tools over the workspace, the permission policy (modes, rules
 * from the command line and settings files), hooks from settings, the session (new, resumed,
 * continued or forked) with its transcript sink, the context governor and the system prompt.
 * `loopOptions` then gives the options of one user turn for `agentLoopWithSubagents` (the loop
 * plus the `Agent` tool, unless `--tools` leaves it out).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ConfigurationError } from '../errors.js';
import { createContextGovernor } from '../context/createContextGovernor.js';
import { createHookRunners } from '../hooks/createHookRunners.js';
import { EMPTY_SETTINGS, loadSettings, mergeSettings } from '../hooks/settings.js';
import type { HooksConfig } from '../hooks/types.js';
import type { HookLifecycleEvent } from '../hooks/hookLifecycle.js';
import { subagentHooksFor } from './subagentHooks.js';
import { AGENT_TOOL_NAME } from '../agents/agentTool.js';
import type { AgentTreeOptions, SubagentOptions } from '../agents/agentTree.js';
import { createPermissionPolicy, type PermissionAnswer, type PermissionRequest } from '../permissions/createPermissionPolicy.js';
import type { TranscriptSink } from '../loop/seams.js';
import type { MessageParam } from '../protocol/content.js';
import type { MessagesClient } from '../transport/types.js';
import type { RunDescription } from './output/streamJson.js';
import { createJsonlSessionStore } from '../session/jsonlSessionStore.js';
import { chooseSessionStore } from '../fleet/chooseSessionStore.js';
import type { SessionStore } from '../session/store.js';
import { workspaceSlug } from '../session/paths.js';
import { continueLatest, fork, resume, startSession, type OpenedSession } from '../session/sessions.js';
import { createBuiltinTools } from '../tools/builtin/createBuiltinTools.js';
import { resolveToolNames } from './toolNames.js';
import { createWorkspace, type Workspace } from '../tools/builtin/workspace.js';
import { createSandbox } from '../sandbox/createSandbox.js';
import { settleBwrapProbes } from '../sandbox/bwrapProbe.js';
import { describeSandbox, type SandboxStatus } from '../sandbox/types.js';
import { commandNamesOf } from '../tools/builtin/shellParse.js';
import { sharedBashCheck } from '../permissions/bashCheckThread.js';
import { askDeniedMessage, type CanUseTool, type PermissionResult } from '../tools/hooks.js';
import type { Tool } from '../tools/types.js';
import { createMessagesClient, DEFAULT_BASE_URL, type ClosableMessagesClient } from '../transport/createMessagesClient.js';
import type { CliOptions, PermissionModeName } from './args.js';
import { resolveModel } from '../context/modelTable.js';
import { chooseModel, modelRequestShape, modelStartWarnings, promptCachingFromEnv, thinkingBudgetFrom } from './modelRequest.js';
import { joinBetas, withRequestExtras } from './requestExtras.js';
import type { PermissionDenial } from './output/resultLine.js';
import { composeSystemPrompt } from './systemPrompt.js';
import { loadMemoryFiles, memorySection } from './claudeMd.js';
import { expandSlashCommand, loadSlashCommands } from './slashCommands.js';
import { argumentHintOf, expandMcpPrompt } from '../mcp/prompts.js';
import { declineElicitation, type McpElicitationHandler } from '../mcp/elicitation.js';
import { createStructuredOutput, STRUCTURED_OUTPUT_TOOL, type StructuredOutputState } from './structuredOutput.js';
import type { McpServerStatus } from '../mcp/connectMcpServers.js';
import type { McpServersConfig } from '../mcp/config.js';
import { mcpLimitsFromEnv } from '../mcp/limits.js';
import { createFileCredentialStore, credentialFileOf } from '../mcp/oauth/credentialStore.js';
import { openMcpSessionLazily, type McpSession } from '../mcp/lazySession.js';
import type { McpServerControl } from '../mcp/serverControl.js';
import { ruleCoversTool } from '../permissions/matchRule.js';
import { parseRule } from '../permissions/rules.js';
import { createReadDenyCheck } from '../permissions/readDenyCheck.js';
import { resolveMcpServers, type AwaitingApproval, type McpApprovals } from '../mcp/sources.js';
import { childPermissionMode, createChildTranscripts, loadCliAgentDefinitions } from './subagents.js';
import { packageVersion } from './version.js';
import { NO_TELEMETRY, telemetryConfigFromEnv, type CommandTelemetry } from '../fleet/tracing/telemetryConfig.js';
import type { LoopEvent } from '../loop/types.js';
import type { MonoTypeOperatorFunction } from 'rxjs';
import { asMainAgent, pickMainAgent } from './mainAgent.js';
import { withSettingsPermissionMode } from './settingsPermissionMode.js';
import { LOCAL_COMMANDS } from './streamInput/localCommands.js';
import { resumedAt, withoutPersistence } from './sessionViews.js';
import { spendingOf, type SpentResponse } from './output/sessionSpending.js';
import { permissionRulesState } from './streamInput/permissionRules.js';
import { hooksListing } from './streamInput/hooksListing.js';
import { settingsView } from './streamInput/settingsView.js';
import { lineUuidsPath, recordLineUuids, recordOfLine } from './output/lineUuids.js';
import { bashLimitsFromEnv } from './bashLimits.js';
import { proxyDispatcherFromEnv } from './proxyDispatcher.js';
import type { Dispatcher } from 'undici';
import { childEnvironment } from '../tools/builtin/processGroup.js';

export interface RunEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly homeDir: string;
  readonly platform: string;
  /** Whether someone can answer permission questions. */
  readonly interactive: boolean;
  /**
   * Whether this run is the interactive view (no `-p`), even when piped: the loop then ignores a
   * PreToolUse 'defer' (nobody would resolve a `tool_deferred` ending there). Default false.
   */
  readonly interactiveView?: boolean;
  readonly ask?: (request: PermissionRequest) => Promise<PermissionAnswer>;
  readonly onWarning: (message: string) => void;
  readonly onDenial?: (denial: PermissionDenial) => void;
  /** In-process hooks added to the settings files' (the SDK host's callbacks). */
  readonly extraHooks?: HooksConfig;
  /** Told before Write or Edit replaces a file (the SDK's file checkpoints keep the original). */
  readonly beforeWrite?: (realPath: string) => Promise<void>;
  /** MCP servers added to the configured ones (the SDK host's in-process servers). */
  readonly extraMcpServers?: McpServersConfig;
  /** Asks about unapproved project MCP servers (the interactive view); without it they are not started. */
  readonly approveMcpServers?: (awaiting: readonly AwaitingApproval[]) => Promise<McpApprovals>;
  /** Who answers a server's elicitation (the interactive view's form). Default: declined with a warning. */
  readonly onElicitation?: McpElicitationHandler;
  /** A W3C traceparent the run's spans continue (a queued job's); else `TRACEPARENT` from `env`. */
  readonly traceparent?: string;
  /** Told when each hook starts and ends (`--include-hook-events` lines, the debug log). */
  readonly onHookEvent?: (event: HookLifecycleEvent) => void;
  /** SessionStart's `source` when the session is the fresh one of a `/clear` (else startup/resume). */
  readonly sessionStartSource?: 'clear';
}

/** Permission rules of the flag settings layer, by behaviour. */
export interface FlagRules {
  readonly allow: readonly string[];
  readonly deny: readonly string[];
  readonly ask: readonly string[];
}

export interface PreparedRun {
  readonly sessionId: string;
  readonly cwd: string;
  /** The model of the next turn (`setModel` changes it). */
  readonly model: string;
  /** `max_tokens` of the next turn's requests (follows the model). */
  readonly maxOutputTokens: number;
  readonly tools: readonly Tool[];
  /** Every tool name the model is offered (the built-ins, then `Agent` when subagents are on). */
  readonly toolNames: readonly string[];
  /** The mode of the next tool call (`setPermissionMode` changes it). */
  readonly permissionMode: PermissionModeName;
  readonly apiKeySource: string;
  readonly transcriptPath: string;
  /** Custom slash commands (`.claude/commands/*.md`). */
  readonly slashCommands: ReadonlyArray<{ readonly name: string; readonly description: string; readonly argumentHint: string }>;
  /** The subagents the Agent tool may start (name, description, model), for the host. */
  readonly agents: ReadonlyArray<{ readonly name: string; readonly description: string; readonly model?: string }>;
  /** What confines shell commands and hooks in this run (said once at start when it is nothing). */
  readonly sandbox?: SandboxStatus;
  /** The MCP servers and their states now (the init line's `mcp_servers`, `mcp_status`). */
  readonly mcpServers?: readonly McpServerStatus[];
  /** The MCP tools offered now (`mcp__<server>__<tool>`), for the interactive /mcp. */
  readonly mcpToolNames?: readonly string[];
  /** Signs in to a remote MCP server with OAuth and connects it again (the interactive /mcp login). */
  readonly mcpSignIn?: McpSession['signIn'];
  /** The file tools' workspace: its roots, Read rules and read-before-edit record (the host's `read_file`, `seed_read_state`). */
  readonly workspace?: Workspace;
  /** The host's changes to the MCP servers (`mcp_set_servers`, `mcp_reconnect`, `mcp_toggle`, `mcp_read_resource`). */
  readonly mcpControl?: McpServerControl;
  /** The history the next turn starts from (the resumed session's, then each turn's result). */
  history: readonly MessageParam[];
  /** A resumed or continued session's responses so far, from its transcript (the totals start from them); absent for a new or forked session. */
  readonly spentBefore?: () => Promise<SpentResponse[]>;
  /** With `--json-schema`: where the current turn's structured answer stands. */
  structuredOutput(): StructuredOutputState | undefined;
  /** The model client and the session's transcript, for the interactive view's /compact. */
  readonly client?: MessagesClient;
  readonly transcript?: TranscriptSink;
  /** Notes which transcript record printed stream-json lines showed (for `--resume-session-at <line uuid>`). */
  readonly recordLines?: (recordUuid: string, lineUuids: readonly string[]) => void;
  /** A manual compaction's PreCompact hooks (trigger `manual`; null: no instructions), run before its summary request. */
  readonly preCompact?: (customInstructions: string | null) => Promise<void>;
  /** `agentLoopWithSubagents` options for one user turn (starting it resets the structured answer). */
  loopOptions(prompt: string | MessageParam, signal: AbortSignal): AgentTreeOptions;
  /** `set_model`: undefined goes back to the model the run started with. */
  setModel(model: string | undefined): void;
  setPermissionMode(mode: PermissionModeName): void;
  /** `set_max_thinking_tokens`: 0 turns thinking off, null goes back to the run's setting. */
  setMaxThinkingTokens(tokens: number | null): void;
  /** Rules the host granted for the rest of the session ("always allow"). */
  addSessionRules(behavior: 'allow' | 'deny' | 'ask', rules: readonly string[]): void;
  /** `get_hooks_listing`: the session's hooks by event, each with its source. */
  readonly hooksListing?: () => Promise<Record<string, unknown>>;
  /** `list_permission_rules`: every rule of the session's policy with its source. */
  readonly permissionRules?: () => Promise<Record<string, unknown>>;
  /** `get_settings`: each settings source as written and their merge, read again per call. */
  readonly settingsView?: () => Promise<Record<string, unknown>>;
  /** The host's flag-settings rules (`apply_flag_settings` permissions): replace the earlier ones. */
  setFlagRules(rules: FlagRules): void;
  /** Each turn's events go through this: OpenTelemetry spans when telemetry is on, else nothing. */
  traceTurn(): MonoTypeOperatorFunction<LoopEvent>;
  /**
   * Releases the session lock and the client's sockets; stops every MCP server; exports buffered
   * spans. SessionEnd hooks are told `reason` (default `other`). Once: later calls share the first.
   */
  close(reason?: 'clear'): Promise<void>;
}

function wholeNumberFrom(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ConfigurationError(`${name} must be a whole number >= 0 (got '${value}')`);
  return n;
}

async function openSession(
  options: CliOptions,
  store: SessionStore,
  cwd: string,
): Promise<OpenedSession> {
  const sessionOptions = { cwd, version: packageVersion() };
  if (options.resume !== undefined) {
    return options.forkSession
      ? fork(store, options.resume, { ...sessionOptions, ...(options.sessionId ? { newSessionId: options.sessionId } : {}) })
      : resume(store, options.resume, sessionOptions);
  }
  if (options.continue) {
    if (!options.forkSession) return continueLatest(store, sessionOptions);
    const [latest] = await store.list();
    if (!latest) throw new ConfigurationError(`no session to continue in ${cwd}`);
    return fork(store, latest.sessionId, { ...sessionOptions, ...(options.sessionId ? { newSessionId: options.sessionId } : {}) });
  }
  return startSession(store, { ...sessionOptions, ...(options.sessionId ? { sessionId: options.sessionId } : {}) });
}

export async function buildRun(given: CliOptions, runEnv: RunEnvironment): Promise<PreparedRun> {
  // Read only when something uses them: a run without subagents never fails on an agent file.
  const loadDefinitions = () =>
    loadCliAgentDefinitions(resolve(runEnv.cwd), given.agents, {
      homeDir: runEnv.homeDir,
      onWarning: runEnv.onWarning,
      ...(given.settingSources ? { sources: given.settingSources } : {}),
    });
  const mainAgentDefinitions = given.agent === undefined ? undefined : await loadDefinitions();
  const flagOptions = given.agent === undefined ? given : asMainAgent(given, pickMainAgent(mainAgentDefinitions ?? [], given.agent));
  const { builtins: toolNames, agent: agentToolOn, server: serverTools, ignored } = resolveToolNames(flagOptions.tools, flagOptions.disallowedTools);
  if (flagOptions.ignoredFlags.length > 0) runEnv.onWarning(`${flagOptions.ignoredFlags.join(', ')}: accepted for the Agent SDK; rxagent has nothing they configure`);
  if (flagOptions.permissionPromptTool !== undefined && flagOptions.permissionPromptTool !== 'stdio') {
    runEnv.onWarning(`--permission-prompt-tool ${flagOptions.permissionPromptTool}: rxagent asks only the SDK host (stdio), never an MCP tool; a call that would ask is refused`);
  }
  if (ignored.length > 0) runEnv.onWarning(`--tools: ${ignored.join(', ')} ${ignored.length === 1 ? 'is a Claude Code tool' : 'are Claude Code tools'} rxagent does not have; ignored`);
  const cwd = resolve(runEnv.cwd);
  for (const dir of flagOptions.addDirs) assertDirectory(resolve(cwd, dir), '--add-dir');
  const settings = await loadSettings({
    cwd,
    homeDir: runEnv.homeDir,
    ...(flagOptions.settings ? { settingsFile: flagOptions.settings } : {}),
    ...(flagOptions.managedSettings ? { managedSettings: flagOptions.managedSettings } : {}),
    ...(flagOptions.settingSources ? { sources: flagOptions.settingSources } : {}),
  });
  settings.warnings.forEach(runEnv.onWarning);
  // A settings file's permissions.defaultMode applies when no flag (or --agent) chose the mode.
  const options = withSettingsPermissionMode(flagOptions, settings.defaultMode);
  if (options.permissionModeAlias === 'auto') runEnv.onWarning(`${flagOptions.permissionModeGiven ? '--permission-mode' : 'permissions.defaultMode'} auto: rxagent has no permission classifier; calls that need approval are asked as in default mode`);
  // A settings file's `env` is the session's environment, over the process's (Claude Code applies
  // it the same way): the model client, Bash, hooks and MCP servers all read this one.
  const env = Object.keys(settings.env).length === 0 ? runEnv.env : { ...runEnv.env, ...settings.env };
  const apiKey = env['ANTHROPIC_API_KEY'] || undefined;
  const authToken = env['ANTHROPIC_AUTH_TOKEN'] || undefined;
  if (apiKey === undefined && authToken === undefined) {
    throw new ConfigurationError(`ANTHROPIC_API_KEY is not set (export it${insideThisRepository(runEnv.cwd) ? ', or run `npm start` for the scripted demo' : ', or ANTHROPIC_AUTH_TOKEN for a bearer token'})`);
  }
  const maxRetries = wholeNumberFrom('RXAGENT_MAX_RETRIES', env['RXAGENT_MAX_RETRIES'] ?? env['CLAUDE_CODE_MAX_RETRIES']);
  // Claude Code's variable: one model request's total time in ms (default 10 minutes, 0 = none).
  const requestTimeoutMs = wholeNumberFrom('API_TIMEOUT_MS', env['API_TIMEOUT_MS']);
  const baseURL = env['ANTHROPIC_BASE_URL'] || DEFAULT_BASE_URL;
  const memory = loadMemoryFiles({ cwd, homeDir: runEnv.homeDir, ...(options.settingSources ? { sources: options.settingSources } : {}) });
  memory.warnings.forEach(runEnv.onWarning);
  const slash = loadSlashCommands({ cwd, homeDir: runEnv.homeDir, ...(options.settingSources ? { sources: options.settingSources } : {}) });
  slash.warnings.forEach(runEnv.onWarning);
  const agentDefinitions = agentToolOn ? (mainAgentDefinitions ?? (await loadDefinitions())) : [];
  const mcpInput = {
    cwd,
    homeDir: runEnv.homeDir,
    mcpConfig: options.mcpConfig,
    strict: options.strictMcpConfig,
    // Inline `--settings` JSON names no file (its keys reach loadSettings above).
    ...(options.settings && !options.settings.trimStart().startsWith('{') ? { settingsFile: options.settings } : {}),
  };
  let mcpSources = resolveMcpServers(mcpInput);
  // The interactive view asks about project servers nobody approved or refused yet, before any starts.
  if (runEnv.approveMcpServers && mcpSources.awaitingApproval.length > 0) {
    mcpSources = resolveMcpServers({ ...mcpInput, sessionApprovals: await runEnv.approveMcpServers(mcpSources.awaitingApproval) });
  }
  const mcpLimits = mcpLimitsFromEnv(env);

  const secrets = [apiKey, authToken].filter((s): s is string => s !== undefined);
  const store = createJsonlSessionStore({
    workspace: cwd,
    dir: join(runEnv.homeDir, '.rxagent', 'projects', workspaceSlug(cwd)),
    redactSecrets: secrets,
  });
  const chosen = await chooseSessionStore(options.sessionStore, store, { env, redactSecrets: secrets, onWarning: runEnv.onWarning });
  let sessionStore = options.noSessionPersistence ? withoutPersistence(chosen.store) : chosen.store;
  if (options.resumeSessionAt !== undefined && options.resume !== undefined) {
    const linesOf = lineUuidsPath(join(store.dir, options.resume));
    sessionStore = resumedAt(sessionStore, options.resume, options.resumeSessionAt, (line) => recordOfLine(linesOf, line));
  }
  const session = await openSession(options, sessionStore, cwd).catch(async (error: unknown) => {
    await chosen.end();
    throw error;
  });
  session.warnings.forEach((w) => runEnv.onWarning(`session: ${w.message}`));
  const sessionId = session.sessionId;
  const transcriptPath = chosen.transcriptPathOf(sessionId);
  // Oversized tool results and child transcripts live here; without persistence, in a temporary
  // directory removed at the end (the Read tool must still be able to open stored results).
  const sessionDir = options.noSessionPersistence ? mkdtempSync(join(tmpdir(), 'rxagent-session-')) : join(store.dir, sessionId);
  const closeSession = () =>
    session
      .close()
      .finally(() => chosen.end())
      .finally(() => options.noSessionPersistence && rmSync(sessionDir, { recursive: true, force: true }));

  let client: ClosableMessagesClient | undefined;
  let mcp: McpSession | undefined;
  let telemetry: CommandTelemetry = NO_TELEMETRY;
  try {
    const telemetryConfig = telemetryConfigFromEnv(env);
    telemetryConfig.warnings.forEach(runEnv.onWarning);
    if (telemetryConfig.kind === 'on') {
      const { startCommandTelemetry } = await import('../fleet/tracing/commandTelemetry.js');
      telemetry = await startCommandTelemetry(telemetryConfig, { version: packageVersion(), traceparent: runEnv.traceparent ?? env['TRACEPARENT'] });
    }
    const initialModel = chooseModel(options.modelGiven ? options.model : undefined, settings.model, env);
    let model = initialModel;
    const initialThinkingBudget = thinkingBudgetFrom(options.maxThinkingTokens, env);
    let thinkingBudget = initialThinkingBudget;
    const shape = () => modelRequestShape(model, env, { mode: options.thinking, budget: thinkingBudget }, options.effort);
    modelStartWarnings(model, env, options.effort, new Date().toISOString().slice(0, 10)).forEach(runEnv.onWarning);
    const promptCaching = promptCachingFromEnv(env);
    client = withRequestExtras(
      createMessagesClient({
        baseURL,
        // A bearer token alone: the client needs a key value, the header below replaces its use.
        apiKey: apiKey ?? (authToken as string),
        headers: requestHeaders(env, apiKey === undefined),
        ...(maxRetries === undefined ? {} : { maxRetries }),
        ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
        ...withDispatcher(proxyDispatcherFromEnv(env)),
      }),
      { serverTools, outputConfig: () => shape().outputConfig, betas: joinBetas(env['ANTHROPIC_BETAS'], options.betas), ...(options.taskBudget === undefined ? {} : { taskBudget: options.taskBudget }) },
    );
    // Oversized tool results are stored beside the transcript; the Read tool must be able to open them.
    const toolResultsDir = join(sessionDir, 'tool-results');
    mkdirSync(toolResultsDir, { recursive: true, mode: 0o700 });
    // Glob and Grep leave out files a Read deny/ask rule covers (the rules in force at each walk).
    const readDenied = createReadDenyCheck({
      rules: () => [...settings.permissions.deny, ...options.disallowedTools, ...sessionRules.deny, ...settings.permissions.ask, ...sessionRules.ask],
      cwd,
      homeDir: runEnv.homeDir,
    });
    const workspace = createWorkspace({ cwd, roots: [...options.addDirs, toolResultsDir], homeDir: runEnv.homeDir, readDenied, ...(runEnv.beforeWrite ? { beforeWrite: runEnv.beforeWrite } : {}) });
    const structured = options.jsonSchema === undefined ? undefined : createStructuredOutput(options.jsonSchema);
    await settleBwrapProbes(); // the probe main.ts started, if any: createSandbox reads its answer
    const sandbox = createSandbox({
      platform: runEnv.platform,
      roots: workspace.roots,
      settings: settings.sandbox,
      disabled: options.noSandbox,
      // A Bash call's names came with its permission check (off the main thread); a hook's
      // command is the user's own, parsed here only when excludedCommands is set.
      commandNames: (command) => sharedBashCheck().known(command)?.commandNames ?? commandNamesOf(command),
      env: { PATH: env['PATH'] },
    });
    if (sandbox.status.kind === 'off') runEnv.onWarning(describeSandbox(sandbox.status));
    sandbox.notes.forEach(runEnv.onWarning);
    const bashLimits = bashLimitsFromEnv(env);
    const toolEnv = childEnvironment(env);
    const toolsIn = (mode: () => string) => createBuiltinTools(workspace, { only: toolNames, bash: { sandbox, permissionMode: mode, env: toolEnv, ...bashLimits } });
    // The mode is read at each call: setPermissionMode changes it during the run.
    const tools = [...toolsIn(() => permissionMode), ...(structured ? [structured.tool] : [])];
    // Every server starts now, in parallel, and stays connected for every turn of the run. The
    // MCP SDK is loaded only when there is a server (it costs every start-up ~0.3 s otherwise).
    mcp = await openMcpSessionLazily({ ...mcpSources.servers, ...runEnv.extraMcpServers }, {
      env,
      cwd,
      limits: mcpLimits,
      notStarted: mcpSources.notStarted,
      clientInfo: { name: 'rxagent', version: packageVersion() },
      // A traced run sends each MCP call's trace context on (telemetry is chosen above).
      traceparentFor: (toolUseId, toolName) => telemetry.traceparentFor(toolUseId, toolName),
      onWarning: runEnv.onWarning,
      // Servers may ask the user (elicitation): the view's form, else declined at once with a warning.
      onElicitation: runEnv.onElicitation ?? declineElicitation(runEnv.onWarning),
      // Remote servers signed in to (OAuth) send their stored tokens; the others get `needs-auth`.
      credentials: createFileCredentialStore(credentialFileOf(runEnv.homeDir)),
      // A bare deny name (`--disallowedTools mcp__files`) removes those tools from the offer.
      offer: (name) => !removedByDenyRules(name, [...settings.permissions.deny, ...options.disallowedTools]),
      // The host's own servers: its mcp_set_servers replaces them.
      hostManaged: Object.keys(runEnv.extraMcpServers ?? {}),
    });
    const mcpSession = mcp;
    const toolNamesOffered = [...tools.map((t) => t.name), ...(agentToolOn ? [AGENT_TOOL_NAME] : []), ...mcpSession.tools().map((t) => t.name), ...serverTools];

    const onDenial = runEnv.onDenial;
    // PermissionRequest hooks answer where a question would be asked, even with nobody to ask.
    const permissionHooks = [settings.hooks, runEnv.extraHooks].some((h) => (h?.PermissionRequest?.length ?? 0) > 0);
    const ask = (request: PermissionRequest): Promise<PermissionAnswer> =>
      hooks.session.permissionRequest(request).then((decided) => {
        if (decided) return decided;
        if (!runEnv.ask || !runEnv.interactive) return { behavior: 'deny', message: askDeniedMessage(request.toolName, request.reason) };
        void hooks.session.notification(`rxagent needs your permission to use ${request.toolName}`, 'permission_prompt');
        return runEnv.ask(request);
      });
    const sessionRules = { allow: [] as string[], deny: [] as string[], ask: [] as string[] };
    let flagRules: FlagRules = { allow: [], deny: [], ask: [] };
    // A bare deny name (the flag layer's from apply_flag_settings too) takes a built-in tool out
    // of the offer, as Claude Code does not offer a denied tool; read per turn, as the rules change.
    const offeredBuiltins = () => tools.filter((t) => t.name === STRUCTURED_OUTPUT_TOOL || !removedByDenyRules(t.name, [...settings.permissions.deny, ...flagRules.deny]));
    const canUseToolIn = (mode: CliOptions['permissionMode']): CanUseTool => {
      const policy = createPermissionPolicy({
        mode,
        rules: {
          // Starting a subagent is allowed by itself: the child's own tool calls each go through
          // this same policy. Deny rules (`--disallowedTools Agent`) still win over this allow.
          allow: [...(agentToolOn ? [AGENT_TOOL_NAME] : []), ...(structured ? [STRUCTURED_OUTPUT_TOOL] : []), ...settings.permissions.allow, ...flagRules.allow, ...options.allowedTools, ...sessionRules.allow],
          deny: [...settings.permissions.deny, ...flagRules.deny, ...options.disallowedTools, ...sessionRules.deny],
          ask: [...settings.permissions.ask, ...flagRules.ask, ...sessionRules.ask],
        },
        cwd,
        homeDir: runEnv.homeDir,
        roots: workspace.roots,
        interactive: runEnv.interactive || permissionHooks,
        ...(runEnv.ask || permissionHooks ? { ask } : {}),
      });
      return (toolName, input, ctx) => {
        const record = (result: PermissionResult): PermissionResult => {
          if (result.behavior === 'deny') onDenial?.({ tool_name: toolName, tool_use_id: ctx.toolUseId, tool_input: input });
          return result;
        };
        const answer = policy(toolName, input, ctx);
        return answer instanceof Promise ? answer.then(record) : record(answer);
      };
    };
    let permissionMode = options.permissionMode;
    // Rebuilt when the mode or the session's rules change; a call already deciding keeps its policy.
    let canUseTool = canUseToolIn(permissionMode);
    const hooks = createHookRunners({
      hooks: runEnv.extraHooks ? mergeSettings(settings, { ...EMPTY_SETTINGS, hooks: runEnv.extraHooks }).hooks : settings.hooks,
      cwd,
      sessionId,
      transcriptPath,
      permissionMode: options.permissionMode,
      onWarning: runEnv.onWarning,
      sandbox,
      env: toolEnv,
      ...(runEnv.onHookEvent ? { onHookEvent: runEnv.onHookEvent } : {}),
    });
    const children = chosen.childTranscripts(sessionId);
    const childTranscripts = createChildTranscripts(children.store, cwd, packageVersion());
    const agents: SubagentOptions = agentToolOn
      ? {
          definitions: agentDefinitions,
          // Fresh tool instances per child: each has its own read-before-edit tracking.
          toolsFor: (_child, definition) => toolsIn(() => childPermissionMode(permissionMode, definition)),
          canUseToolFor: (_child, definition) => canUseToolIn(childPermissionMode(permissionMode, definition)),
          ...(options.noSessionPersistence ? {} : { transcriptFor: (child) => childTranscripts.sinkFor(child.agentId) }),
          resolveModel: (name) => resolveModel(name, env),
          ...withHooksFor(subagentHooksFor(hooks.agent, children.pathOf)),
        }
      : { maxDepth: 0 };

    const started = await hooks.session.sessionStart(runEnv.sessionStartSource ?? (options.resume !== undefined || options.continue ? 'resume' : 'startup'), model);
    const governor = createContextGovernor({
      client,
      sessionDir,
      tools,
      ...(hooks.agent.configured.preCompact ? { beforeCompact: (trigger) => hooks.agent.preCompact(trigger === 'manual' ? 'manual' : 'auto', null) } : {}),
    });
    const append = [readPromptFile(options.appendSystemPromptFile) ?? options.appendSystemPrompt, memorySection(memory.files), started.additionalContext, structured?.instructions].filter((t) => t !== undefined && t !== '').join('\n\n');
    const system = composeSystemPrompt(readPromptFile(options.systemPromptFile) ?? options.systemPrompt, append === '' ? undefined : append, {
      cwd,
      extraDirs: options.addDirs.map((d) => resolve(cwd, d)),
      platform: runEnv.platform,
      date: new Date(),
      tools: toolNamesOffered,
    });

    const openedClient = client;
    let closing: Promise<void> | undefined;
    const run: PreparedRun = {
      sessionId,
      cwd,
      get model() {
        return model;
      },
      get maxOutputTokens() {
        return shape().maxOutputTokens;
      },
      tools,
      // The MCP part as it is now: the host may add, remove or switch off servers during the run.
      get toolNames() {
        return [...offeredBuiltins().map((t) => t.name), ...(agentToolOn ? [AGENT_TOOL_NAME] : []), ...mcpSession.tools().map((t) => t.name), ...serverTools];
      },
      agents: agentDefinitions.map((d) => ({ name: d.name, description: d.description, ...(d.model ? { model: d.model } : {}) })),
      get permissionMode() {
        return permissionMode;
      },
      apiKeySource: apiKey === undefined ? 'none' : 'ANTHROPIC_API_KEY',
      // The servers' prompts are commands too (`/mcp__<server>__<prompt>`), listed as they are now.
      get slashCommands() {
        return [
          ...slash.commands.map((c) => ({ name: c.name, description: c.description, argumentHint: c.argumentHint })),
          ...mcpSession.prompts().map((p) => ({ name: p.command, description: p.description, argumentHint: argumentHintOf(p) })),
        ];
      },
      transcriptPath,
      preCompact: (customInstructions) => hooks.agent.preCompact('manual', customInstructions),
      ...(options.noSessionPersistence ? {} : { recordLines: (recordUuid: string, lines: readonly string[]) => recordLineUuids(lineUuidsPath(sessionDir), recordUuid, lines) }),
      sandbox: sandbox.status,
      get mcpServers() {
        return mcpSession.servers();
      },
      get mcpToolNames() {
        return mcpSession.tools().map((t) => t.name);
      },
      workspace,
      mcpSignIn: mcpSession.signIn,
      mcpControl: { replaceServers: mcpSession.replaceServers, reconnect: mcpSession.reconnect, setEnabled: mcpSession.setEnabled, readResource: mcpSession.readResource },
      history: session.messages,
      // The same session goes on (a fork is a new one, which has spent nothing yet).
      ...((options.resume !== undefined || options.continue) && !options.forkSession ? { spentBefore: () => sessionStore.read(sessionId).then((t) => spendingOf(t.records)) } : {}),
      structuredOutput: () => structured?.state(),
      client: openedClient,
      transcript: session.sink,
      loopOptions: (prompt, signal) => {
        structured?.reset();
        const request = shape();
        return {
          model,
          client: openedClient,
          system,
          tools: offeredBuiltins(),
          refreshTools: mcpSession.refreshTools,
          expandPrompt: expandMcpPrompt(mcpSession.prompts),
          messages: run.history,
          prompt: typeof prompt === 'string' ? expandSlashCommand(prompt, slash.commands) : prompt,
          maxOutputTokens: request.maxOutputTokens,
          ...(request.thinking ? { thinking: request.thinking } : {}),
          promptCaching,
          hooks: { ...hooks.loopHooks, ...(structured ? { stop: structured.wrapStop(hooks.loopHooks.stop) } : {}), ...hooks.toolHooks },
          // Reads the current policy at each call, so set_permission_mode reaches a running turn.
          canUseTool: (toolName, input, ctx) => canUseTool(toolName, input, ctx),
          contextGovernor: governor,
          transcript: session.sink,
          signal,
          agents,
          // Children inherit it through the agent tree.
          interactive: runEnv.interactiveView === true,
          ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
          ...(options.fallbackModel === undefined ? {} : { fallbackModel: resolveModel(options.fallbackModel, env) }),
          ...(options.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: options.maxBudgetUsd }),
      };
      },
      setModel: (next) => {
        model = next === undefined ? initialModel : resolveModel(next, env);
      },
      setMaxThinkingTokens: (tokens) => {
        thinkingBudget = tokens ?? initialThinkingBudget;
      },
      setPermissionMode: (mode) => {
        permissionMode = mode;
        canUseTool = canUseToolIn(mode);
      },
      addSessionRules: (behavior, rules) => {
        sessionRules[behavior].push(...rules);
        canUseTool = canUseToolIn(permissionMode);
      },
      hooksListing: () =>
        hooksListing({
          cwd,
          homeDir: runEnv.homeDir,
          ...(options.settings === undefined ? {} : { settingsFile: options.settings }),
          ...(options.settingSources ? { sources: options.settingSources } : {}),
          ...(runEnv.extraHooks ? { hostHooks: runEnv.extraHooks } : {}),
        }),
      settingsView: () =>
        settingsView({
          cwd,
          homeDir: runEnv.homeDir,
          ...(options.settings === undefined ? {} : { settingsFile: options.settings }),
          ...(options.managedSettings === undefined ? {} : { managedSettings: options.managedSettings }),
          ...(options.settingSources ? { sources: options.settingSources } : {}),
        }),
      permissionRules: () =>
        permissionRulesState({
          cwd,
          homeDir: runEnv.homeDir,
          ...(options.settings === undefined ? {} : { settingsFile: options.settings }),
          ...(options.managedSettings === undefined ? {} : { managedSettings: options.managedSettings }),
          ...(options.settingSources ? { sources: options.settingSources } : {}),
          addDirs: options.addDirs,
          cliArg: { allow: options.allowedTools, deny: options.disallowedTools },
          flag: () => flagRules,
          session: () => sessionRules,
        }),
      setFlagRules: (rules) => {
        flagRules = rules;
        canUseTool = canUseToolIn(permissionMode);
      },
      traceTurn: () => telemetry.traceTurn(sessionId),
      close: (reason) =>
        (closing ??= (async () => {
          await hooks.session.sessionEnd(reason ?? 'other');
          // The children's writers first: in a database they share the pool the session's close ends.
          await childTranscripts.close();
          await Promise.allSettled([closeSession(), openedClient.close(), mcpSession.close(), telemetry.shutdown()]);
          sandbox.close();
        })()),
    };
    return run;
  } catch (error) {
    await Promise.allSettled([closeSession(), client?.close(), mcp?.close(), telemetry.shutdown()]);
    throw error;
  }
}

function withDispatcher(dispatcher: Dispatcher | undefined): { dispatcher?: Dispatcher } {
  return dispatcher ? { dispatcher } : {};
}

function withHooksFor(hooksFor: SubagentOptions['hooksFor']): Pick<SubagentOptions, 'hooksFor'> {
  return hooksFor ? { hooksFor } : {};
}

function removedByDenyRules(toolName: string, denyRules: readonly string[]): boolean {
  return denyRules.some((rule) => {
    if (rule.includes('(')) return false;
    try {
      return ruleCoversTool(parseRule(rule), toolName);
    } catch {
      return false;
    }
  });
}

/**
 * Headers of every request beyond the client's own: `ANTHROPIC_CUSTOM_HEADERS` ("Name: value"
 * per line), and with only `ANTHROPIC_AUTH_TOKEN` its `Authorization: Bearer` (and no x-api-key).
 * `anthropic-beta` is joined per request (`withRequestExtras`).
 */
export function requestHeaders(env: Readonly<Record<string, string | undefined>>, bearerOnly: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of (env['ANTHROPIC_CUSTOM_HEADERS'] ?? '').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const token = env['ANTHROPIC_AUTH_TOKEN'];
  if (token) headers['authorization'] = `Bearer ${token}`;
  if (bearerOnly) headers['x-api-key'] = '';
  return headers;
}

/** `--system-prompt-file` and friends: the file's text (a clear error when unreadable). */
function readPromptFile(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigurationError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Whether `cwd` is inside a clone of rxagent itself (where `npm start` runs the demo). */
function insideThisRepository(cwd: string): boolean {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === 'rxagent') return true;
    } catch {
      // no package.json here
    }
    if (dirname(dir) === dir) return false;
  }
}

/** A clear configuration error, before anything is created, for a directory flag that names no directory. */
function assertDirectory(path: string, flag: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (error) {
    throw new ConfigurationError(`${flag} ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (error as Error).message}`);
  }
  if (!isDir) throw new ConfigurationError(`${flag} ${path}: not a directory`);
}

/** What the output lines say about a run (the init line, the mapper). */
export function describeRun(run: PreparedRun): RunDescription {
  return {
    sessionId: run.sessionId,
    cwd: run.cwd,
    model: run.model,
    tools: [...run.toolNames],
    permissionMode: run.permissionMode,
    apiKeySource: run.apiKeySource,
    version: packageVersion(),
    agents: run.agents.map((a) => a.name),
    // The built-ins a prompt may be (`/clear`, `/compact`), then the custom and MCP ones.
    slashCommands: [...LOCAL_COMMANDS, ...run.slashCommands].map((c) => c.name),
    maxOutputTokens: run.maxOutputTokens,
    ...(run.sandbox === undefined ? {} : { sandbox: run.sandbox }),
    mcpServers: (run.mcpServers ?? []).map(({ name, status }) => ({ name, status })),
  };
}
