/**
 * `rxagent/testing`: test your own agent.
 *
 * - Over HTTP: `startScriptedServer({ script })` plays a script of replies on 127.0.0.1 like the
 *   Messages API (validating each request as the API does); point any client at its `baseURL`.
 *   `gate()` orders a reply's end (`endAfter`) or a block (`startAfter`) after an event of yours.
 * - In virtual time, the marble kit: stream event builders (`messageStart()`, `textDelta()`, ...),
 *   `replyMarble()` (a scripted reply as a `cold()` diagram), `coldModel()` (a recording
 *   `deps.callModel`), `eventLetters()` / `letters()` (a loop's events as diagram letters), tool
 *   fixtures timed in frames (`waitTool`, `progressTool`, `neverTool`, `throwingTool`),
 *   `submitAt()` (user input at a frame) and `testScheduler()`.
 */
export type {
  BlockTiming,
  RecordedRequest,
  Script,
  ScriptedBlock,
  ScriptedHttpError,
  ScriptedMessage,
  ScriptedRaw,
  ScriptedResponse,
  ScriptedStall,
} from './script.js';
export { startScriptedServer } from './scriptedServer.js';
export { gate } from './gate.js';
export type { Gate } from './gate.js';
export type { ScriptedServer, ScriptedServerOptions } from './scriptedServer.js';
export { validateMessagesRequest } from './validateRequest.js';
export {
  DEFAULT_SCRIPTED_MODEL,
  defaultMessageId,
  defaultStopReason,
  defaultToolUseId,
  encodeSSE,
  encodeSSEStream,
  estimateInputTokens,
  planScriptedStream,
  scriptedMessageToEvents,
  scriptedMessageToJson,
  scriptedUsage,
  splitText,
  toolInputText,
} from './encodeScript.js';
export type { EncodeScriptOptions, ScriptedStreamPlan, StreamEnding, TimedStreamEvent } from './encodeScript.js';
export * from './marbles/index.js';
