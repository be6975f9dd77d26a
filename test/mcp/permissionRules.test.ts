/** Permission rules for MCP tools: `mcp__<server>` covers the server's tools, `mcp__<server>__<tool>` one. */
import { describe, expect, it } from 'vitest';
import { ruleCoversTool } from '../../src/permissions/matchRule.js';
import { parseRule } from '../../src/permissions/rules.js';

describe('MCP rule names', () => {
  const covers = (rule: string, tool: string) => ruleCoversTool(parseRule(rule), tool);

  it('mcp__<server> and mcp__<server>__* cover every tool of that server and no other', () => {
    expect(covers('mcp__files', 'mcp__files__read')).toBe(true);
    expect(covers('mcp__files__*', 'mcp__files__write')).toBe(true);
    expect(covers('mcp__files', 'mcp__filesystem__read')).toBe(false);
    expect(covers('mcp__files', 'Read')).toBe(false);
  });

  it('mcp__<server>__<tool> covers that tool only', () => {
    expect(covers('mcp__files__read', 'mcp__files__read')).toBe(true);
    expect(covers('mcp__files__read', 'mcp__files__read_more')).toBe(false);
    expect(covers('mcp__files__read', 'mcp__files__write')).toBe(false);
  });
});
