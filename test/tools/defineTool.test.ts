import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError } from '../../src/errors.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { closestToolNames, createToolRegistry, editDistance } from '../../src/tools/registry.js';

const base = {
  description: 'd',
  inputSchema: z.strictObject({ path: z.string(), limit: z.number().default(10) }),
  isConcurrencySafe: true,
  call: () => 'x',
};

describe('defineTool', () => {
  it('computes the JSON Schema once, input side, without $schema, rejecting unknown keys', () => {
    const tool = defineTool({ name: 'Read', ...base });
    expect(tool.jsonSchema).toEqual({
      type: 'object',
      properties: { path: { type: 'string' }, limit: { type: 'number', default: 10 } },
      required: ['path'],
      additionalProperties: false,
    });
    expect(tool.interruptBehavior).toBe('block');
    expect(defineTool({ name: 'R', ...base, interruptBehavior: 'cancel' }).interruptBehavior).toBe('cancel');
    expect(Object.isFrozen(tool)).toBe(true);
  });

  it('refuses invalid names, non-object schemas and nonsense limits with a ConfigurationError', () => {
    expect(() => defineTool({ name: 'has space', ...base })).toThrow(ConfigurationError);
    expect(() => defineTool({ name: 'A', ...base, aliases: ['bad/alias'] })).toThrow(/alias/);
    expect(() => defineTool({ ...base, name: 'S', inputSchema: z.string() })).toThrow(/JSON object/);
    expect(() => defineTool({ name: 'M', ...base, maxResultSizeChars: 0 })).toThrow(/maxResultSizeChars/);
    expect(() => defineTool({ name: 'T', ...base, timeoutMs: -1 })).toThrow(/timeoutMs/);
  });
});

describe('tool registry', () => {
  it('finds by name or alias and refuses duplicate names', () => {
    const read = defineTool({ name: 'Read', aliases: ['View'], ...base });
    const registry = createToolRegistry([read]);
    expect(registry.byName.get('View')).toBe(read);
    expect(createToolRegistry(registry.tools)).toBe(registry); // cached per array
    expect(() => createToolRegistry([read, defineTool({ name: 'View', ...base })])).toThrow(ConfigurationError);
  });

  it('suggests close names, nearest first', () => {
    const names = ['Read', 'Write', 'Edit', 'Grep', 'Glob', 'Bash', 'WebFetch'];
    const registry = createToolRegistry(names.map((name) => defineTool({ name, ...base })));
    expect(editDistance('Reed', 'Read')).toBe(1);
    expect(closestToolNames('read', registry)).toEqual(['Read']);
    expect(closestToolNames('Gerp', registry)).toEqual(['Grep']);
    expect(closestToolNames('Fetch', registry)).toEqual(['WebFetch']);
    expect(closestToolNames('Compile', registry)).toEqual([]);
  });
});
