/** /mcp's report: every configured server with its state, its own name/version, and its tools. */
import { describe, expect, test } from 'vitest';
import { mcpReport, toolsOf } from '../../../src/cli/interactive/mcpReport.js';

const plain = (_style: string, text: string) => text;

describe('/mcp report', () => {
  test('no servers: says so and where servers are configured', () => {
    expect(mcpReport([], [], plain, 80)).toMatch(/^No MCP servers configured\. Add one with --mcp-config/);
  });

  test('connected, failed and pending servers; tools under their short names, wrapped', () => {
    const report = mcpReport(
      [
        { name: 'files', status: 'connected', serverInfo: { name: 'secure-filesystem-server', version: '0.2.0' } },
        { name: 'broken', status: 'failed', error: 'spawn nosuch ENOENT' },
        { name: 'repo', status: 'pending', error: 'project server not approved' },
      ],
      ['Bash', 'mcp__files__read_file', 'mcp__files__write_file', 'mcp__files__list_directory'],
      plain,
      40,
    );
    expect(report).toBe(
      [
        'MCP servers (3):',
        '  files   connected · secure-filesystem-server 0.2.0 · 3 tools',
        '    read_file, write_file,',
        '    list_directory',
        '  broken  failed',
        '    spawn nosuch ENOENT',
        '  repo    pending',
        '    project server not approved',
      ].join('\n'),
    );
  });

  test('a server whose name is a prefix of another does not take its tools', () => {
    const tools = ['mcp__a__x', 'mcp__a__b__y'];
    expect(toolsOf('a', ['a', 'a__b'], tools)).toEqual(['x']);
    expect(toolsOf('a__b', ['a', 'a__b'], tools)).toEqual(['y']);
  });
});
