/**
 * `taskBudget` through the real SDK (it passes `--task-budget <total>`): every model request of
 * the loop carries `output_config.task_budget` with the task-budgets beta, beside the effort.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { assertBuilt, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

test('taskBudget reaches every request as output_config.task_budget with its beta', async () => {
  const { messages, server } = await runQuery(
    [{ kind: 'message', blocks: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*' } }] }, { kind: 'message', blocks: [{ type: 'text', text: 'paced' }] }],
    'look around',
    { taskBudget: { total: 400_000 }, effort: 'low', model: 'claude-opus-4-7', permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true },
  );
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'paced' });
  expect(server.requests).toHaveLength(2);
  for (const request of server.requests) {
    expect(request.body!).toMatchObject({ output_config: { effort: 'low', task_budget: { type: 'tokens', total: 400_000 } } });
    expect(request.headers['anthropic-beta']).toContain('task-budgets-2026-03-13');
  }
}, 60_000);
