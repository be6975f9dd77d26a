// The card's pipeline, stage by stage: SSE → blocks → tools → interleave → withhold.
export { decodeSSE } from './decodeSSE.js';
export type { DecodeSSEOptions } from './decodeSSE.js';
export { withDeadline } from './withDeadline.js';
export type { WithDeadlineOptions } from './withDeadline.js';
export { assembleBlocks } from './assembleBlocks.js';
export { scheduleTools } from './scheduleTools.js';
export type { ScheduleToolsOptions } from './scheduleTools.js';
export { interleaveTools } from './interleaveTools.js';
export { withholdRecoverable } from './withholdRecoverable.js';
export type { WithholdRecoverableOptions } from './withholdRecoverable.js';
// Selectors for UIs.
export { ofLoopType } from './ofLoopType.js';
export { textDeltas } from './textDeltas.js';
export { subagentEvents } from './subagentEvents.js';
export { idleTimeout } from './idleTimeout.js';
export type { IdleTimeoutOptions } from './idleTimeout.js';
// What the stages emit, for code that names them.
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
} from '../src/assembly/types.js';
export type { TransportOutput } from '../src/transport/types.js';
