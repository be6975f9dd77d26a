/**
 * `rxagent/ui`: the view model every UI can render. `toView()` turns the loop's event stream into
 * immutable `AgentView`s; `reduceView` is its pure reducer; the selectors answer the common
 * questions; `toExternalStore` adapts a view stream to React/Svelte-style stores;
 * `createPermissionChannel` carries permission questions out and answers back; `runCommands`
 * drives a whole conversation from ONE stream of UI commands (prompts, permission answers, Stop).
 */
export type {
  AgentView,
  BoundaryItem,
  DiffLine,
  MessageView,
  NoticeItem,
  Part,
  PermissionEvent,
  PermissionView,
  StampedEvent,
  StreamUsage,
  SubagentView,
  TerminalSummary,
  TextPart,
  ThinkingPart,
  ToolPart,
  ToolResultView,
  ToolStatus,
  TurnItem,
  TurnView,
  ViewEvent,
  ViewSnapshotEvent,
  ElicitationEvent,
  ElicitationView,
} from './types.js';
export { emptyView, reduceView } from './reduceView.js';
export { toView, toViewStamped, type ToViewOptions } from './toView.js';
export { allTools, lastAnswer, liveCost, liveUsage, pendingPermissions, runningTools, totalCost } from './selectors.js';
export { toExternalStore, type ViewStore } from './externalStore.js';
export { createPermissionChannel, type PermissionChannel } from './permissionChannel.js';
export { createElicitationChannel, type ElicitationChannel } from './elicitationChannel.js';
export { fileChangeDiff, lineDiff } from './diff.js';
export { inputSummary } from './inputSummary.js';
export { createCommandSession, runCommands, type CommandOutcome, type CommandSession, type CommandSessionOptions } from './commandSession.js';
export { IDLE, reduceCommands, type CommandAction, type CommandEffect, type CommandState, type QueuedPrompt, type UiCommand } from './commands.js';
