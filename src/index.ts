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
