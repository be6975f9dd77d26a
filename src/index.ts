/**
 * `rxagent`: what an Rx app needs to run the loop. The loop and run entry points, the client,
 * `defineTool`, the errors, the events and terminals with their guards, and the protocol types
 * a program handles. Everything else is in a sub-path:
 *
 * - `rxagent/operators`: the pipeline's stages and the UI selectors.
 * - `rxagent/tools`: the built-in tools and the tool-call pipeline.
 * - `rxagent/context`: context governance, model tables, token estimates, prices.
 * - `rxagent/session`: JSONL sessions (resume, continue, fork) and transcript sinks.
 * - `rxagent/permissions`: rules, modes, `canUseTool`.
 * - `rxagent/hooks`: settings-file hooks and the loop's hook seams.
 * - `rxagent/mcp`, `rxagent/ui`, `rxagent/testing`.
 *
 * Reducers and internals are not exported. `test/package/publicSurface.test.ts` keeps this
 * entry at 60 names or fewer.
 */

/* The loop and its runs */
export { agentLoop } from './loop/agentLoop.js';
export type { AgentLoopOptions } from './loop/options.js';
export { createAgentRun } from './loop/createAgentRun.js';
export type { AgentRun, SubmitHandle, SubmitOptions } from './loop/createAgentRun.js';
export type { Submission, SubmissionAck } from './loop/runInput.js';
export { agentLoopWithSubagents } from './agents/agentTree.js';
export type { AgentTreeOptions, SubagentOptions } from './agents/agentTree.js';
export { createAgentTreeRun } from './agents/createAgentTreeRun.js';

/* The client */
export { createMessagesClient } from './transport/createMessagesClient.js';
export type { ClosableMessagesClient, MessagesClientOptions } from './transport/createMessagesClient.js';
export type { MessagesClient } from './transport/types.js';

/* Tools */
export { defineTool } from './tools/defineTool.js';
export type { Tool, ToolCallContext, ToolEvent, ToolResultContent, ToolSpec } from './tools/types.js';

/* Errors */
export {
  ApiError,
  AssemblyError,
  ConfigurationError,
  ConnectionError,
  RequestTimeout,
  RxAgentError,
  StreamIdleTimeout,
  StreamProtocolError,
  SubagentLimitError,
} from './errors.js';
export type { RxAgentErrorKind } from './errors.js';

/* Events and terminals */
export { isCancelledTerminal, isControlledTerminal, isErrorTerminal, isRecoveryTransition, isTerminalEvent } from './loop/types.js';
export type {
  CommandStatus,
  LoopEvent,
  LoopEventOf,
  LoopEventType,
  TerminalEvent,
  TerminalReason,
  TransitionReason,
  UsageTotals,
} from './loop/types.js';

/* Protocol types */
export type {
  AssistantContentBlock,
  AssistantMessage,
  ContentBlock,
  ImageBlock,
  MessageParam,
  RedactedThinkingBlock,
  StopReason,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from './protocol/content.js';
export type { MessagesRequest } from './protocol/request.js';
export type { StreamEvent } from './protocol/events.js';

/* Interop */
export { toAsyncIterable } from './util/toAsyncIterable.js';
