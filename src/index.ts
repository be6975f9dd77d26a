/* Assembly */
export { applyEvent, assembleStep, createAssemblyState, resetAssemblyState } from './assembly/reducer.js';
export type { AssemblyState, AssemblyStep } from './assembly/reducer.js';
export { isInvalidToolUse } from './assembly/types.js';
export type {
  AssemblyEvent,
  AssemblyOutput,
  BlockCompletedEvent,
  BlockStartedEvent,
  InvalidToolUseBlock,
  MessageCompletedEvent,
  MessageDeltaReceivedEvent,
  MessageStartedEvent,
  TextDeltaEvent,
  ThinkingDeltaEvent,
  ToolInputDeltaEvent,
} from './assembly/types.js';

/* Errors */
export {
  AssemblyError,
  ApiError,
  ConfigurationError,
  ConnectionError,
  RequestTimeout,
  RxAgentError,
  StreamIdleTimeout,
  StreamProtocolError,
  redact,
} from './errors.js';
export type { AssemblyErrorType, RxAgentErrorKind, StreamProtocolErrorType } from './errors.js';

/* Transport */
export { createMessagesClient } from './transport/createMessagesClient.js';
export type { ClosableMessagesClient, MessagesClientOptions } from './transport/createMessagesClient.js';
export { decodeSSE } from '../operators/decodeSSE.js';
export { withAnnouncedRetries } from './transport/withAnnouncedRetries.js';
export type { AnnouncedRetryOptions } from './transport/withAnnouncedRetries.js';
export type { DecodeSSEOptions } from '../operators/decodeSSE.js';
export {
  backoffDelayMs,
  decideRetry,
  isRetryableError,
  isRetryableStatus,
  parseRetryAfterMs,
} from './transport/retryPolicy.js';
export type { BackoffOptions, RetryDecision } from './transport/retryPolicy.js';
export type {
  ApiRetryEvent,
  DebugEvent,
  MessagesClient,
  StreamCallOptions,
  StreamRetryEvent,
  TransportEvent,
  TransportOutput,
} from './transport/types.js';

/* Tools */
export { defineTool } from './tools/defineTool.js';
export { runToolCall, errorResult } from './tools/runToolCall.js';
export type { PipelineStep, PipelineTraceEntry, RunToolCallOptions } from './tools/runToolCall.js';
export { classifyCall } from './tools/classifyCall.js';
export type { ClassifiedCall } from './tools/classifyCall.js';
export { closestToolNames, createToolRegistry, editDistance } from './tools/registry.js';
export type { ToolRegistry } from './tools/registry.js';
export { defaultRenderResult, limitResultSize } from './tools/renderResult.js';
export { createSchedulerState, stepScheduler } from './tools/schedulerState.js';
export type { ScheduledCall, SchedulerCommand, SchedulerInput, SchedulerMode, SchedulerState } from './tools/schedulerState.js';
export { askDeniedMessage } from './tools/hooks.js';
export type {
  CanUseTool,
  CanUseToolContext,
  PermissionDecision,
  PermissionResult,
  PostToolUseHook,
  PostToolUseInput,
  PostToolUseResult,
  PreToolUseHook,
  PreToolUseInput,
  PreToolUseResult,
  StopContinuation,
  ToolHooks,
} from './tools/hooks.js';
export type {
  ContextChange,
  InterruptBehavior,
  SharedContext,
  Tool,
  ToolCallContext,
  ToolCallReturn,
  ToolEvent,
  ToolOutcome,
  ToolResultContent,
  ToolSpec,
  ToolYield,
  ValidationResult,
} from './tools/types.js';

/* Loop */
export { agentLoop } from './loop/agentLoop.js';
export {
  TERMINAL_REASONS,
  TRANSITION_REASONS,
  isCancelledTerminal,
  isControlledTerminal,
  isErrorTerminal,
  isRecoveryTransition,
  isTerminalEvent,
} from './loop/types.js';
export type {
  CancelledTerminalReason,
  CommandStatus,
  CompactTrigger,
  ControlledTerminalReason,
  ErrorTerminalReason,
  LoopError,
  LoopEvent,
  LoopEventOf,
  LoopEventType,
  LoopState,
  QueryTracking,
  TerminalEvent,
  TerminalReason,
  TransitionReason,
  UsageTotals,
  UserMessageReason,
} from './loop/types.js';
export { passThroughGovernor } from './loop/seams.js';
export type {
  CompactBoundary,
  ContextGovernor,
  GovernorDecision,
  GovernorInput,
  HookDecision,
  LoopHooks,
  PostToolBatchHook,
  PostToolBatchHookInput,
  ReactiveCompactResult,
  StopHook,
  StopHookInput,
  TranscriptRecord,
  TranscriptSink,
  UserPromptSubmitHook,
  UserPromptSubmitHookInput,
} from './loop/seams.js';
export { DEFAULT_MAX_OUTPUT_TOKENS } from './loop/options.js';
export type { AgentLoopHooks, AgentLoopOptions, CallModel, LoopDeps, ToolSchedulerFactory, ToolSchedulerInput } from './loop/options.js';
export { DEFAULT_PRICES, addUsage, costOf, createCostBudget, priceFor } from './loop/pricing.js';
export type { CostBudget, ModelPrice, PriceTable } from './loop/pricing.js';

/* Built-in tools */
export { createBuiltinTools, BUILTIN_TOOL_NAMES } from './tools/builtin/createBuiltinTools.js';
export type { BuiltinToolName, BuiltinToolsOptions } from './tools/builtin/createBuiltinTools.js';
export { createWorkspace, ToolRefusal } from './tools/builtin/workspace.js';
export { DiskFullError } from './tools/builtin/atomicWrite.js';
export { escapeForTerminal, formatCommandForApproval } from './util/escapeForTerminal.js';
export type { ReadRecord, Workspace, WorkspaceOptions } from './tools/builtin/workspace.js';
export { readTool } from './tools/builtin/read.js';
export { writeTool } from './tools/builtin/write.js';
export { editTool } from './tools/builtin/edit.js';
export { globTool } from './tools/builtin/glob.js';
export { grepTool } from './tools/builtin/grep.js';
export { bashTool, CommandFailed } from './tools/builtin/bash.js';
export type { BashToolOptions } from './tools/builtin/bash.js';
export { classifyBashCommand, isReadOnlyBashCommand } from './tools/builtin/bashReadOnly.js';
export type { ReadOnlyVerdict } from './tools/builtin/bashReadOnly.js';
export { createGlobMatcher, globToRegExp } from './tools/builtin/globMatch.js';
export { runProcessGroup } from './tools/builtin/processGroup.js';
export type { ProcessGroupOptions, ProcessGroupResult } from './tools/builtin/processGroup.js';

/* Permissions */
export {
  createPermissionPolicy,
  createReadDenyCheck,
  decidePermission,
  callKindOf,
  modeVerdict,
  parseRule,
  parseRuleStrings,
  parseToolList,
  PERMISSION_MODES,
  ruleMatches,
  splitToolList,
} from './permissions/index.js';
export type {
  CallKind,
  PermissionAnswer,
  PermissionMode,
  PermissionPolicyOptions,
  PermissionRequest,
  PermissionRule,
  PermissionRuleSet,
  PermissionRuleStrings,
  PermissionVerdict,
  ReadDenyCheck,
  RuleBehavior,
} from './permissions/index.js';

/* Hooks (settings files and in-process) */
export { createHookRunners, loadSettings, mergeSettings, readSettingsFile, runHook, HOOK_EVENTS } from './hooks/index.js';
export type {
  CallbackHookSpec,
  CommandHookSpec,
  HookCallback,
  HookEvent,
  HookInput,
  HookJSONOutput,
  HookMatcherGroup,
  HookRunnerOptions,
  HookRunners,
  HookSpec,
  HooksConfig,
  LoopHookResult,
  Settings,
} from './hooks/index.js';

/* Context governance */
export { createContextGovernor, DEFAULT_MAX_CONSECUTIVE_COMPACT_FAILURES, DEFAULT_MAX_SUMMARY_TOKENS, MAX_KEEP_RECENT_TOKENS } from './context/createContextGovernor.js';
export type { ContextGovernorOptions, ToolResultLimit } from './context/createContextGovernor.js';
export { DEFAULT_MODEL_LIMITS, MODEL_LIMITS, modelLimits } from './context/models.js';
export type { ModelLimits, ModelLimitsTable } from './context/models.js';
export { DEFAULT_MODEL, MODEL_ALIASES, MODEL_TABLE, modelInfo, resolveModel } from './context/modelTable.js';
export type { ModelInfo, ThinkingSupport } from './context/modelTable.js';
export { defaultThinkingFor } from './context/thinkingDefaults.js';
export {
  AUTO_COMPACT_BUFFER,
  BLOCKING_BUFFER,
  CHARS_PER_TOKEN,
  IMAGE_TOKENS,
  MAX_OUTPUT_RESERVE,
  contextThresholds,
  countTokens,
  estimateBlockTokens,
  estimateMessageTokens,
  estimateMessagesTokens,
  estimateTextTokens,
  usageTokens,
} from './context/tokens.js';
export type { ContextThresholds, TokenCountInput } from './context/tokens.js';
export { applyToolResultBudget, createFileResultStore, createToolResultBudgetState, DEFAULT_PREVIEW_CHARS } from './context/toolResultBudget.js';
export type {
  StoredToolResult,
  ToolResultBudgetOptions,
  ToolResultBudgetResult,
  ToolResultBudgetState,
  UnstorableToolResult,
} from './context/toolResultBudget.js';
export { snip } from './context/snip.js';
export type { SnipOptions, SnipResult } from './context/snip.js';
export { MICROCOMPACT_PLACEHOLDER, microcompact } from './context/microcompact.js';
export type { MicrocompactOptions, MicrocompactResult } from './context/microcompact.js';
export {
  EmptySummaryError,
  buildCompactedView,
  buildCompactionRequest,
  planCompaction,
  renderTranscript,
  requestSummary,
} from './context/compact.js';
export type { CompactionPlan, CompactionRequestOptions } from './context/compact.js';
export { COMPACT_SYSTEM_PROMPT } from './context/compactPrompt.js';
export { findKeptStart, isToolResultMessage, isTurnStart } from './context/turns.js';
export type { GovernorNotice } from './loop/seams.js';

/* Sessions (JSONL transcripts, resume, continue, fork) */
export {
  InvalidSessionIdError,
  InvalidSessionRecordError,
  SessionClosedError,
  SessionError,
  SessionExistsError,
  SessionFileTypeError,
  SessionLockedError,
  SessionNotFoundError,
  SessionWriteError,
} from './session/errors.js';
export type { LockHolder, SessionErrorType } from './session/errors.js';
export {
  assistantRecordSchema,
  compactBoundaryRecordSchema,
  compactTriggerSchema,
  isMessageRecord,
  sessionRecordSchema,
  summaryRecordSchema,
  systemRecordSchema,
  tombstoneRecordSchema,
  userRecordSchema,
} from './session/records.js';
export type {
  AssistantRecord,
  CompactBoundaryRecord,
  MessageRecord,
  SessionRecord,
  SessionRecordType,
  SummaryRecord,
  SystemRecord,
  TombstoneRecord,
  UserRecord,
} from './session/records.js';
export type { SessionWarning, SessionWarningKind } from './session/warnings.js';
export type { OpenMode, SessionInfo, SessionStore, SessionTranscript, SessionWriter } from './session/store.js';
export { createJsonlSessionStore } from './session/jsonlSessionStore.js';
export type { JsonlSessionStore, JsonlSessionStoreOptions } from './session/jsonlSessionStore.js';
export { defaultSessionDir, workspaceSlug } from './session/paths.js';
export { parseTranscript } from './session/parseTranscript.js';
export type { ParsedTranscript } from './session/parseTranscript.js';
export { followChain, rebuildMessages, SESSION_ENDED_TOOL_RESULT } from './session/rebuild.js';
export type { RebuiltView, UserMessageParam } from './session/rebuild.js';
export { continueLatest, fork, resume, startSession } from './session/sessions.js';
export type { ForkOptions, OpenedSession, SessionOptions } from './session/sessions.js';
export { createTranscriptSink, toSessionRecords } from './session/transcriptSink.js';
export type { RecordContext, SessionTranscriptSink, TranscriptSinkOptions } from './session/transcriptSink.js';
export { createAgentRun } from './loop/createAgentRun.js';
export type { AgentRun, SubmitHandle, SubmitOptions } from './loop/createAgentRun.js';
export type { Submission } from './loop/runInput.js';

/* Subagents */
export { agentLoopWithSubagents, DEFAULT_MAX_AGENT_DEPTH } from './agents/agentTree.js';
export type { AgentTreeOptions, SubagentInfo, SubagentOptions } from './agents/agentTree.js';
export { createAgentTreeRun } from './agents/createAgentTreeRun.js';
export { AGENT_TOOL_NAME, agentInputSchema, createAgentTool, renderAgentOutput } from './agents/agentTool.js';
export type { AgentToolInput, AgentToolOutput, StartedChild, SubagentLauncher } from './agents/agentTool.js';
export {
  AgentDefinitionError,
  defineAgent,
  GENERAL_PURPOSE_AGENT,
  loadAgentDirectory,
  mergeAgentDefinitions,
  parseAgentMarkdown,
  parseAgentsJson,
} from './agents/definitions.js';
export type { AgentDefinition } from './agents/definitions.js';
export { parseFrontMatter, FrontMatterSyntaxError } from './agents/frontMatter.js';
export type { FrontMatterValue, ParsedFrontMatter } from './agents/frontMatter.js';
export { isSubagentEventData, subagentEventOf } from './agents/events.js';
export type { SubagentEventData } from './agents/events.js';
export { createTreeBudget } from './agents/treeBudget.js';
export type { TreeBudget } from './agents/treeBudget.js';

/* Interop */
export { toAsyncIterable } from './util/toAsyncIterable.js';

/* MCP: the types; the functions are in `rxagent/mcp` (so a plain import does not load the MCP SDK) */
export type { McpServerStatus, McpTools } from './mcp/connectMcpServers.js';
export type { McpServerConfig, McpServersConfig } from './mcp/config.js';
