/** `rxagent/testing`: the scripted model server and its script format, for tests and benchmarks. */
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
