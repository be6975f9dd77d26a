/**
 * The command's additions to every model request, applied where the request leaves for the
 * API (a client wrapper), so the loop stays what the library is:
 * - server tools (`--tools WebSearch WebFetch`): the API runs them, so their definitions go in
 *   front of the loop's tools (the loop's cache breakpoint on its last tool then covers them too);
 * - `output_config.effort` (`--effort`) and `output_config.task_budget` (`--task-budget`, with its
 *   beta; the same total on every request: the API counts down within one agentic loop);
 * - one `anthropic-beta` header joining the run's betas (`--betas`, `ANTHROPIC_BETAS`, what the
 *   server tools need) with the per-call ones the loop adds (interleaved thinking): a per-call
 *   header would otherwise replace the client's.
 * A summarization call (`querySource: 'compact'`) gets no server tools: it must only summarize.
 */
import type { ServerToolDefinition } from '../protocol/request.js';
import type { ClosableMessagesClient } from '../transport/createMessagesClient.js';

/** Claude Code's tool names for the API's server tools, and what each sends. */
export const SERVER_TOOLS: Readonly<Record<string, { readonly definition: ServerToolDefinition; readonly beta?: string }>> = {
  WebSearch: { definition: { type: 'web_search_20250305', name: 'web_search' } },
  WebFetch: { definition: { type: 'web_fetch_20250910', name: 'web_fetch' }, beta: 'web-fetch-2025-09-10' },
};

export interface RequestExtras {
  readonly serverTools: readonly string[];
  /** Read at each request: `set_model` may move to a model that takes none. */
  readonly outputConfig: () => { readonly effort: string } | undefined;
  readonly betas: readonly string[];
  /** `--task-budget`: tokens for the whole agentic loop (advisory; the model paces itself). */
  readonly taskBudget?: number;
}

export const TASK_BUDGET_BETA = 'task-budgets-2026-03-13';

export function joinBetas(...lists: ReadonlyArray<readonly string[] | string | undefined>): string[] {
  const all = lists.flatMap((l) => (l === undefined ? [] : typeof l === 'string' ? l.split(',') : l)).map((b) => b.trim());
  return [...new Set(all.filter((b) => b !== ''))];
}

export function withRequestExtras(client: ClosableMessagesClient, extras: RequestExtras): ClosableMessagesClient {
  const servers = extras.serverTools.map((name) => SERVER_TOOLS[name]).filter((s) => s !== undefined);
  const baseBetas = joinBetas(extras.betas, servers.flatMap((s) => (s.beta ? [s.beta] : [])), extras.taskBudget === undefined ? [] : [TASK_BUDGET_BETA]);
  return {
    close: () => client.close(),
    stream: (request, options) => {
      const summarizing = options?.querySource === 'compact';
      const tools = summarizing || servers.length === 0 ? request.tools : [...servers.map((s) => s.definition), ...(request.tools ?? [])];
      const outputConfig = { ...extras.outputConfig(), ...(extras.taskBudget === undefined ? {} : { task_budget: { type: 'tokens', total: extras.taskBudget } }) };
      const body = {
        ...request,
        ...(tools === undefined ? {} : { tools }),
        ...(Object.keys(outputConfig).length === 0 ? {} : { output_config: { ...(request['output_config'] as object | undefined), ...outputConfig } }),
      };
      const betas = joinBetas(baseBetas, options?.headers?.['anthropic-beta']);
      const headers = { ...options?.headers, ...(betas.length > 0 ? { 'anthropic-beta': betas.join(',') } : {}) };
      return client.stream(body, { ...options, headers });
    },
  };
}
