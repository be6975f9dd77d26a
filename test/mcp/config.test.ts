/** Claude Code's MCP configuration shapes and `${VAR}` expansion. */
import { describe, expect, it } from 'vitest';
import { expandServerConfig, loadMcpConfigArgument, parseMcpServers } from '../../src/mcp/config.js';
import { ConfigurationError } from '../../src/errors.js';
import { mcpLimitsFromEnv, DEFAULT_MCP_LIMITS } from '../../src/mcp/limits.js';
import { mcpToolName } from '../../src/mcp/toolName.js';

describe('parseMcpServers', () => {
  it('reads stdio (with or without type), http and sse servers', () => {
    expect(
      parseMcpServers(
        {
          mcpServers: {
            a: { command: 'node', args: ['s.js'], env: { K: 'v' } },
            b: { type: 'stdio', command: 'srv' },
            c: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer t' } },
            d: { type: 'sse', url: 'http://127.0.0.1:1/sse' },
          },
        },
        'test',
      ),
    ).toEqual({
      a: { command: 'node', args: ['s.js'], env: { K: 'v' } },
      b: { type: 'stdio', command: 'srv' },
      c: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer t' } },
      d: { type: 'sse', url: 'http://127.0.0.1:1/sse' },
    });
  });

  it.each([
    [{ mcpServers: { x: { args: [] } } }, 'MCP server "x": "command" must be a non-empty string'],
    [{ mcpServers: { x: { command: 'a', args: [1] } } }, '"args" must be an array of strings'],
    [{ mcpServers: { x: { type: 'http' } } }, '"url" must be a non-empty string'],
    [{ mcpServers: { x: { type: 'ws', url: 'ws://x' } } }, 'unknown "type" "ws"'],
    [{ servers: {} }, 'expected {"mcpServers"'],
  ])('a malformed configuration is a ConfigurationError naming what is wrong (%#)', (doc, message) => {
    expect(() => parseMcpServers(doc, 'file.json')).toThrow(ConfigurationError);
    expect(() => parseMcpServers(doc, 'file.json')).toThrow(message);
  });
});

describe('loadMcpConfigArgument', () => {
  it('takes inline JSON or a file path', () => {
    expect(loadMcpConfigArgument('{"mcpServers":{"a":{"command":"x"}}}')).toEqual({ a: { command: 'x' } });
    expect(loadMcpConfigArgument('cfg.json', (path) => (path === 'cfg.json' ? '{"mcpServers":{"b":{"command":"y"}}}' : ''))).toEqual({ b: { command: 'y' } });
  });

  it('invalid JSON and missing files are ConfigurationErrors', () => {
    expect(() => loadMcpConfigArgument('{"mcpServers":')).toThrow(/--mcp-config \(inline JSON\): not valid JSON/);
    expect(() => loadMcpConfigArgument('/nonexistent/mcp.json')).toThrow('--mcp-config /nonexistent/mcp.json: no such file');
  });
});

describe('expandServerConfig', () => {
  const env = { HOME: '/home/u', TOKEN: 'secret' };

  it('expands ${VAR} and ${VAR:-default} in command, args, env, url and headers', () => {
    expect(expandServerConfig({ command: '${HOME}/bin/srv', args: ['--x=${MISSING:-d}', '${TOKEN}'], env: { T: '${TOKEN}' } }, env)).toEqual({
      config: { command: '/home/u/bin/srv', args: ['--x=d', 'secret'], env: { T: 'secret' } },
      missing: [],
    });
    expect(expandServerConfig({ type: 'http', url: 'http://127.0.0.1:${PORT:-8080}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } }, env)).toEqual({
      config: { type: 'http', url: 'http://127.0.0.1:8080/mcp', headers: { Authorization: 'Bearer secret' } },
      missing: [],
    });
  });

  it('lists unset variables without a default, once each', () => {
    expect(expandServerConfig({ command: '${A}', args: ['${B}', '${A}'] }, {}).missing).toEqual(['A', 'B']);
  });

  it('an empty default is a default', () => {
    expect(expandServerConfig({ command: 'x${NONE:-}y' }, {})).toEqual({ config: { command: 'xy' }, missing: [] });
  });
});

describe('limits and names', () => {
  it('reads MCP_TIMEOUT, MCP_TOOL_TIMEOUT and MAX_MCP_OUTPUT_TOKENS, keeping defaults for unset ones', () => {
    expect(mcpLimitsFromEnv({})).toEqual(DEFAULT_MCP_LIMITS);
    expect(mcpLimitsFromEnv({ MCP_TIMEOUT: '5000', MCP_TOOL_TIMEOUT: '60000', MAX_MCP_OUTPUT_TOKENS: '1000' })).toEqual({
      connectTimeoutMs: 5000,
      toolTimeoutMs: 60000,
      maxOutputTokens: 1000,
    });
    expect(() => mcpLimitsFromEnv({ MCP_TIMEOUT: 'soon' })).toThrow("MCP_TIMEOUT must be a positive whole number (got 'soon')");
  });

  it('names tools mcp__<server>__<tool>, replacing characters the API refuses', () => {
    expect(mcpToolName('my server', 'get.thing')).toBe('mcp__my_server__get_thing');
  });
});
