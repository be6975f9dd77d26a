/**
 * The schemas a `-p` run loads before its first request build their fields at first use (zod 4
 * getters), not at load (issue 20 §3): checked on fresh module instances. And what that made
 * written out by hand (KNOWN_BLOCK_TYPES) must equal what the schemas say.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

/**
 * Whether none of the object schema's fields is built yet: zod has not resolved its shape (its def
 * still holds zod's accessor) and every field of the shape it was given is a getter.
 */
function unresolved(schema: unknown): boolean {
  const def = (schema as { _zod: { def: object } })._zod.def;
  const accessor = Object.getOwnPropertyDescriptor(def, 'shape')?.get as (() => object) & { raw?: object } | undefined;
  if (accessor?.raw === undefined) return false;
  return Object.values(Object.getOwnPropertyDescriptors(accessor.raw)).every((field) => typeof field.get === 'function');
}

describe('schemas built at first use', () => {
  it('loading the protocol, session and tool modules resolves none of their object shapes', async () => {
    vi.resetModules();
    const content = await import('../../src/protocol/content.js');
    const records = await import('../../src/session/records.js');
    const tools = [
      (await import('../../src/tools/builtin/read.js')).readInputSchema,
      (await import('../../src/tools/builtin/write.js')).writeInputSchema,
      (await import('../../src/tools/builtin/edit.js')).editInputSchema,
      (await import('../../src/tools/builtin/glob.js')).globInputSchema,
      (await import('../../src/tools/builtin/grep.js')).grepInputSchema,
      (await import('../../src/tools/builtin/bash.js')).bashInputSchema,
      (await import('../../src/agents/agentTool.js')).agentInputSchema,
    ];
    const schemas = [
      content.textBlockSchema,
      content.cacheControlSchema,
      content.messageParamSchema,
      content.usageSchema,
      content.assistantMessageSchema,
      content.otherBlockSchema,
      ...content.serverBlockSchemas,
      records.userRecordSchema,
      records.assistantRecordSchema,
      records.compactBoundaryRecordSchema,
      records.summaryRecordSchema,
      records.systemRecordSchema,
      records.tombstoneRecordSchema,
      ...tools,
    ];
    expect(schemas.filter((schema) => !unresolved(schema))).toEqual([]);
    // A parse resolves them, once, into the same fields.
    const record = { uuid: 'u', parentUuid: null, sessionId: 's', timestamp: '2026-01-02T03:04:05.678Z', cwd: '/', version: '0', type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } };
    expect(records.sessionRecordSchema.parse(record)).toEqual(record);
    expect(unresolved(records.userRecordSchema)).toBe(false);
    expect(Object.keys(records.userRecordSchema.shape)).toEqual(['uuid', 'parentUuid', 'sessionId', 'timestamp', 'cwd', 'version', 'chainId', 'depth', 'type', 'message', 'reason', 'isMeta']);
    // The common fields are one set of schemas for all records, as before.
    expect(records.assistantRecordSchema.shape.uuid).toBe(records.userRecordSchema.shape.uuid);
  });

  it('KNOWN_BLOCK_TYPES holds exactly the types of the block schemas in contentBlockSchema', async () => {
    const { contentBlockSchema, KNOWN_BLOCK_TYPES } = await import('../../src/protocol/content.js');
    const known = (contentBlockSchema as unknown as z.ZodUnion<readonly [z.ZodDiscriminatedUnion<readonly z.ZodObject[]>, z.ZodType]>).def.options[0];
    const types = known.def.options.flatMap((option): string[] => {
      const type = option.shape['type'] as z.ZodLiteral<string> | z.ZodEnum;
      return 'options' in type ? [...(type.options as string[])] : [...type.values];
    });
    expect(new Set(types)).toEqual(KNOWN_BLOCK_TYPES);
    expect(types.length).toBe(KNOWN_BLOCK_TYPES.size);
  });
});
