/** `@modelcontextprotocol/server-filesystem` over stdio on a temporary directory. */
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, hold, resultOf, toolNamed, type Held } from './hold.js';
import { FILESYSTEM_BIN } from './servers.js';

describe('server-filesystem over stdio', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'rxagent-mcp-fs-')));
  let held: Held;
  beforeAll(async () => {
    writeFileSync(join(root, 'notes.txt'), 'first line\nsecond line\n');
    held = hold({ fs: { command: process.execPath, args: [FILESYSTEM_BIN, root] } });
    await held.first;
  });
  afterAll(async () => {
    await held?.close();
  });

  it('reads a file of the allowed directory', async () => {
    const result = resultOf(await callTool(held.latest()!.tools, 'mcp__fs__read_text_file', { path: join(root, 'notes.txt') }));
    expect(result.is_error).toBeUndefined();
    expect(String(result.content)).toContain('second line');
  });

  it('writes a file (an unsafe tool) and the file is on disk', async () => {
    const tools = held.latest()!;
    expect(toolNamed(tools, 'mcp__fs__write_file').isConcurrencySafe).toBe(false);
    expect(toolNamed(tools, 'mcp__fs__read_text_file').isConcurrencySafe).toBe(true);
    const result = resultOf(await callTool(tools.tools, 'mcp__fs__write_file', { path: join(root, 'new.txt'), content: 'written by MCP' }));
    expect(result.is_error).toBeUndefined();
    expect(readFileSync(join(root, 'new.txt'), 'utf8')).toBe('written by MCP');
  });

  it('a path outside the allowed directory is an error result from the server', async () => {
    const result = resultOf(await callTool(held.latest()!.tools, 'mcp__fs__read_text_file', { path: '/etc/hostname' }));
    expect(result.is_error).toBe(true);
    expect(String(result.content)).toMatch(/denied|outside|not allowed/i);
  });

  it('a missing required parameter is refused before the call, naming it', async () => {
    const result = resultOf(await callTool(held.latest()!.tools, 'mcp__fs__write_file', { path: join(root, 'x.txt') }));
    expect(result.is_error).toBe(true);
    expect(String(result.content)).toContain('content');
  });
});
