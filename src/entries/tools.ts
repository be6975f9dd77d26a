/**
 * `rxagent/tools`: the built-in tools (Read, Write, Edit, Glob, Grep, Bash) and their workspace,
 * the tool-call pipeline a custom scheduler runs, and the tool types beyond the root's.
 */
export { createBuiltinTools, BUILTIN_TOOL_NAMES } from '../tools/builtin/createBuiltinTools.js';
export type { BuiltinToolName, BuiltinToolsOptions } from '../tools/builtin/createBuiltinTools.js';
export { createWorkspace, ToolRefusal } from '../tools/builtin/workspace.js';
export { DiskFullError } from '../tools/builtin/atomicWrite.js';
export { escapeForTerminal, formatCommandForApproval } from '../util/escapeForTerminal.js';
export type { ReadRecord, Workspace, WorkspaceOptions } from '../tools/builtin/workspace.js';
export { readTool } from '../tools/builtin/read.js';
export { writeTool } from '../tools/builtin/write.js';
export { editTool } from '../tools/builtin/edit.js';
export { globTool } from '../tools/builtin/glob.js';
export { grepTool } from '../tools/builtin/grep.js';
export { bashTool, CommandFailed } from '../tools/builtin/bash.js';
export type { BashToolOptions } from '../tools/builtin/bash.js';
export { classifyBashCommand, isReadOnlyBashCommand } from '../tools/builtin/bashReadOnly.js';
export type { ReadOnlyVerdict } from '../tools/builtin/bashReadOnly.js';

export { ToolFailure } from '../tools/toolFailure.js';
export { runToolCall } from '../tools/runToolCall.js';
export type { PipelineStep, PipelineTraceEntry, RunToolCallOptions } from '../tools/runToolCall.js';
export { createToolRegistry } from '../tools/registry.js';
export type { ToolRegistry } from '../tools/registry.js';
export { defaultRenderResult, limitResultSize } from '../tools/renderResult.js';
export type {
  ContextChange,
  InterruptBehavior,
  SharedContext,
  ToolCallReturn,
  ToolOutcome,
  ToolYield,
  ValidationResult,
} from '../tools/types.js';
export type { ToolSchedulerFactory, ToolSchedulerInput } from '../loop/options.js';
