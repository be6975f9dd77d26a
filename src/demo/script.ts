/**
 * The scripted model's side of the `npm start` demo. It is a function of the request, not a
 * fixed list, so it reacts to what the real tools returned: it only concludes once the test run
 * it asked for reports no failures.
 */
import path from 'node:path';
import type { ContentBlock, MessageParam } from '../protocol/content.js';
import type { MessagesRequest } from '../protocol/request.js';
import type { ScriptedResponse } from '../testing/script.js';
import { DEMO_BUG } from './project.js';

const TEST_COMMAND = 'node --test';

function assistantTurns(messages: readonly MessageParam[]): number {
  return messages.filter((m) => m.role === 'assistant').length;
}

function lastToolResultText(messages: readonly MessageParam[]): string {
  const last = messages[messages.length - 1];
  if (!last || typeof last.content === 'string') return '';
  return last.content
    .filter((b): b is Extract<ContentBlock, { type: 'tool_result' }> => b.type === 'tool_result')
    .map((b) => (typeof b.content === 'string' ? b.content : (b.content ?? []).map((c) => ('text' in c ? c.text : '')).join('')))
    .join('\n');
}

/** Paced like a real model: text in small chunks, tools closing one after another. */
const pace = { chunkSize: 12, deltaDelayMs: 8 } as const;

export function createDemoScript(workspace: string): (request: MessagesRequest) => ScriptedResponse {
  const file = (rel: string) => path.join(workspace, rel);
  return (request) => {
    const step = assistantTurns(request.messages);
    const usage = { input_tokens: 900 + step * 400, output_tokens: 120 };
    switch (step) {
      case 0:
        return {
          kind: 'message',
          usage,
          blocks: [
            { type: 'text', text: 'I will read the code and its tests, and run the test suite to see the failure.', ...pace },
            { type: 'tool_use', name: 'Read', input: { file_path: file('src/stats.js') }, delayMs: 20 },
            { type: 'tool_use', name: 'Read', input: { file_path: file('test/stats.test.js') }, delayMs: 20 },
            { type: 'tool_use', name: 'Bash', input: { command: TEST_COMMAND, description: 'Run the tests' }, delayMs: 20 },
          ],
        };
      case 1:
        return {
          kind: 'message',
          usage,
          blocks: [
            {
              type: 'text',
              text: 'The loop in `sum` starts at index 1, so the first value is never added. Starting at 0 fixes it.',
              ...pace,
            },
            {
              type: 'tool_use',
              name: 'Edit',
              input: { file_path: file(DEMO_BUG.file), old_string: DEMO_BUG.oldString, new_string: DEMO_BUG.newString },
              delayMs: 20,
            },
          ],
        };
      case 2:
        return {
          kind: 'message',
          usage,
          blocks: [
            { type: 'text', text: 'Now the tests again, to check the fix.', ...pace },
            { type: 'tool_use', name: 'Bash', input: { command: TEST_COMMAND, description: 'Run the tests' }, delayMs: 20 },
          ],
        };
      default: {
        const output = lastToolResultText(request.messages);
        const passed = /\bfail 0\b/.test(output) && /\bpass [1-9]/.test(output);
        return {
          kind: 'message',
          usage,
          blocks: [
            {
              type: 'text',
              text: passed
                ? 'Fixed: `sum` skipped the first element because its loop started at 1. All tests pass now.'
                : 'The tests still fail after the edit; the output above shows which ones.',
              ...pace,
            },
          ],
        };
      }
    }
  };
}
