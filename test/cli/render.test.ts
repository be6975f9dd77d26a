/** The terminal view as a pure function of loop events. */
import { describe, expect, test } from 'vitest';
import type { LoopEvent } from '../../src/loop/types.js';
import { createTerminalRenderer, editDiffLines, summarizeToolInput } from '../../src/cli/interactive/render.js';

const t = { chainId: 'c', depth: 0 };
const events: LoopEvent[] = [
  { ...t, type: 'model', event: { type: 'text_delta', index: 0, text: 'Fixing ' } },
  { ...t, type: 'model', event: { type: 'text_delta', index: 0, text: 'it.' } },
  { ...t, type: 'model', event: { type: 'block', index: 0, block: { type: 'text', text: 'Fixing it.' } } },
  { ...t, type: 'tool_start', toolUseId: 'e', name: 'Edit', input: { file_path: 'src/a.js', old_string: 'i = 1', new_string: 'i = 0' } },
  { ...t, type: 'tool_result', toolUseId: 'e', name: 'Edit', result: { type: 'tool_result', tool_use_id: 'e', content: 'ok' }, durationMs: 12 },
  { ...t, type: 'tool_start', toolUseId: 'b', name: 'Bash', input: { command: 'node --test' } },
  { ...t, type: 'tool_result', toolUseId: 'b', name: 'Bash', result: { type: 'tool_result', tool_use_id: 'b', content: 'exit 1\nmore', is_error: true }, durationMs: 1500 },
  {
    ...t,
    type: 'terminal',
    reason: 'completed',
    turnCount: 3,
    usage: { inputTokens: 1200, outputTokens: 300, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    costUsd: 0.0123,
    durationMs: 2500,
  },
];

describe('createTerminalRenderer', () => {
  test('plain: streamed text, tool lines with times, an Edit diff, a summary; no escape codes', () => {
    const r = createTerminalRenderer({ color: false });
    const out = events.map((e) => r.render(e)).join('');
    expect(out).toBe(
      [
        'Fixing it.',
        '> Edit src/a.js',
        '  ok Edit 12ms',
        '    - i = 1',
        '    + i = 0',
        '> Bash node --test',
        '  x Bash failed after 1.5s: exit 1',
        '-- 3 turns · 1,200 in / 300 out tokens · $0.0123 · 2.5s · completed',
        '',
      ].join('\n'),
    );
    expect(out).not.toContain('\u001b[');
  });

  test('a failed command shows its trailing exit note rather than its first output line', () => {
    const r = createTerminalRenderer({ color: false });
    r.render(events[5]!);
    const out = r.render({ ...t, type: 'tool_result', toolUseId: 'b', name: 'Bash', result: { type: 'tool_result', tool_use_id: 'b', content: 'TAP version 13\nnot ok 1\n[exit code 1]', is_error: true }, durationMs: 20 });
    expect(out).toBe('  x Bash failed after 20ms: exit code 1\n');
  });

  test('an error terminal says why before the summary', () => {
    const r = createTerminalRenderer({ color: false });
    const out = r.render({ ...(events[7] as Extract<LoopEvent, { type: 'terminal' }>), reason: 'max_turns', turnCount: 1 });
    expect(out.split('\n')[0]).toBe('Reached the maximum number of turns (1).');
  });

  test('a stream retry starts a new line and says the partial text is void', () => {
    const r = createTerminalRenderer({ color: false });
    r.render(events[0]!);
    const out = r.render({ ...t, type: 'stream_retry', retry: { type: 'stream_retry', attempt: 1, maxRetries: 10, delayMs: 500, status: undefined, errorType: 'connection', message: 'reset' } });
    expect(out.startsWith('\n(')).toBe(true);
    expect(out).toContain('discarded');
  });
});

describe('helpers', () => {
  test('summarizeToolInput picks the recognizable field and shortens it', () => {
    expect(summarizeToolInput('Bash', { command: 'ls\n-la' })).toBe('ls -la');
    expect(summarizeToolInput('Grep', { pattern: 'x'.repeat(100) })).toHaveLength(80);
    expect(summarizeToolInput('X', null)).toBe('');
  });

  test('editDiffLines caps long sides', () => {
    const lines = editDiffLines({ old_string: Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n'), new_string: 'n' });
    expect(lines.filter((l) => l.sign === '-')).toHaveLength(13);
    expect(lines[12]!.text).toContain('8 more lines');
    expect(editDiffLines({ file_path: 'a' })).toEqual([]);
  });
});
