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
  RxAgentError,
  StreamIdleTimeout,
  StreamProtocolError,
  redact,
} from './errors.js';
export type { AssemblyErrorType, RxAgentErrorKind, StreamProtocolErrorType } from './errors.js';

/* Transport */
export { createMessagesClient } from './transport/createMessagesClient.js';
export type { ClosableMessagesClient, MessagesClientOptions } from './transport/createMessagesClient.js';
export { decodeSSE } from './transport/decodeSSE.js';
export type { DecodeSSEOptions } from './transport/decodeSSE.js';
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
