/**
 * `rxagent/context`: context governance (compaction, snipping, microcompaction, tool-result
 * budgets), the model tables and limits, token estimates, and prices and cost budgets.
 */
export { createContextGovernor, DEFAULT_MAX_CONSECUTIVE_COMPACT_FAILURES, DEFAULT_MAX_SUMMARY_TOKENS, MAX_KEEP_RECENT_TOKENS } from '../context/createContextGovernor.js';
export type { ContextGovernorOptions, ToolResultLimit } from '../context/createContextGovernor.js';
export { passThroughGovernor } from '../loop/seams.js';
export type { CompactBoundary, ContextGovernor, GovernorDecision, GovernorInput, GovernorNotice, ReactiveCompactResult } from '../loop/seams.js';
export type { CompactTrigger } from '../loop/types.js';
export { DEFAULT_MODEL_LIMITS, MODEL_LIMITS, modelLimits } from '../context/models.js';
export type { ModelLimits, ModelLimitsTable } from '../context/models.js';
export { DEFAULT_MODEL, MODEL_ALIASES, MODEL_TABLE, modelInfo, resolveModel } from '../context/modelTable.js';
export type { ModelInfo, ThinkingSupport } from '../context/modelTable.js';
export { defaultThinkingFor } from '../context/thinkingDefaults.js';
export { contextThresholds, countTokens, estimateMessagesTokens, estimateTextTokens } from '../context/tokens.js';
export type { ContextThresholds, TokenCountInput } from '../context/tokens.js';
export { createFileResultStore } from '../context/toolResultBudget.js';
export type { StoredToolResult, ToolResultBudgetOptions, UnstorableToolResult } from '../context/toolResultBudget.js';
export { snip } from '../context/snip.js';
export type { SnipOptions, SnipResult } from '../context/snip.js';
export { microcompact } from '../context/microcompact.js';
export type { MicrocompactOptions, MicrocompactResult } from '../context/microcompact.js';
export { EmptySummaryError } from '../context/compact.js';
export { DEFAULT_PRICES, costOf, createCostBudget, priceFor } from '../loop/pricing.js';
export type { CostBudget, ModelPrice, PriceTable } from '../loop/pricing.js';
export { createTreeBudget } from '../agents/treeBudget.js';
export type { TreeBudget } from '../agents/treeBudget.js';
