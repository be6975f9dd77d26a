import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentInputSchema } from '../../src/agents/agentTool.js';
import { bashInputSchema, bashInputSchemaFor } from '../../src/tools/builtin/bash.js';
import { editInputSchema } from '../../src/tools/builtin/edit.js';
import { globInputSchema } from '../../src/tools/builtin/glob.js';
import { grepInputSchema } from '../../src/tools/builtin/grep.js';
import { readInputSchema } from '../../src/tools/builtin/read.js';
import { writeInputSchema } from '../../src/tools/builtin/write.js';
import * as written from '../../src/tools/builtinInputJsonSchemas.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { precomputedJsonSchemaOf, withPrecomputedJsonSchema } from '../../src/tools/precomputedJsonSchema.js';

/** Every schema registered with a written-out JSON Schema, by the name of its constant in builtinInputJsonSchemas.ts. */
const registered: Record<string, z.ZodType> = {
  READ_INPUT_JSON_SCHEMA: readInputSchema,
  WRITE_INPUT_JSON_SCHEMA: writeInputSchema,
  EDIT_INPUT_JSON_SCHEMA: editInputSchema,
  GLOB_INPUT_JSON_SCHEMA: globInputSchema,
  GREP_INPUT_JSON_SCHEMA: grepInputSchema,
  BASH_INPUT_JSON_SCHEMA: bashInputSchema,
  AGENT_INPUT_JSON_SCHEMA: agentInputSchema,
};

/** What defineTool computed before the conversions were written out. */
const fresh = (schema: z.ZodType) => {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return jsonSchema;
};

describe('the written-out JSON Schemas of the built-in input schemas', () => {
  it('covers every constant of builtinInputJsonSchemas.ts', () => {
    expect(Object.keys(written).sort()).toEqual(Object.keys(registered).sort());
  });

  for (const [name, schema] of Object.entries(registered)) {
    it(`${name} is, as JSON text, exactly a fresh conversion of its schema`, () => {
      const expected = JSON.stringify(fresh(schema), null, 2);
      // On a mismatch, paste the printed text as the constant's new value.
      expect(JSON.stringify(written[name as keyof typeof written], null, 2), `${name} = ${expected}`).toBe(expected);
      expect(JSON.stringify(precomputedJsonSchemaOf(schema))).toBe(JSON.stringify(fresh(schema)));
    });
  }

  it('gives defineTool the same JSON Schema, a copy of its own for each tool', () => {
    const spec = { name: 'Read', description: 'd', inputSchema: readInputSchema, isConcurrencySafe: true, call: () => 'x' };
    const one = defineTool(spec);
    const two = defineTool(spec);
    expect(JSON.stringify(one.jsonSchema)).toBe(JSON.stringify(fresh(readInputSchema)));
    expect(one.jsonSchema).not.toBe(two.jsonSchema);
    expect(one.jsonSchema['properties']).not.toBe(two.jsonSchema['properties']);
  });

  it('leaves a schema that is not registered (Bash under other limits, a derived schema) to the conversion', () => {
    expect(precomputedJsonSchemaOf(bashInputSchemaFor(1000, 5000))).toBeUndefined();
    expect(precomputedJsonSchemaOf(readInputSchema.describe('other'))).toBeUndefined();
    const other = bashInputSchemaFor(1000, 5000);
    const tool = defineTool({ name: 'Bash', description: 'd', inputSchema: other, isConcurrencySafe: false, call: () => 'x' });
    expect(JSON.stringify(tool.jsonSchema)).toBe(JSON.stringify(fresh(other)));
    expect(JSON.stringify(tool.jsonSchema)).toContain('"maximum":5000');
  });

  it('registers by identity and returns the schema itself', () => {
    const schema = z.strictObject({ a: z.string() });
    expect(withPrecomputedJsonSchema(schema, { type: 'object' })).toBe(schema);
    expect(precomputedJsonSchemaOf(schema)).toEqual({ type: 'object' });
  });
});
