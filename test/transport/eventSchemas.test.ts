import { describe, expect, it } from 'vitest';
import { CORE_BLOCK_TYPES, KNOWN_DELTA_TYPES, KNOWN_STREAM_EVENT_TYPES, streamEventSchemas } from '../../src/protocol/events.js';

/** The `type` literal of each option of a discriminated union of objects. */
const typesOf = (options: readonly { readonly shape: { readonly type: { readonly value: unknown } } }[]) =>
  options.map((option) => option.shape.type.value);

describe('the stream event schemas, built at first use', () => {
  it('are built once: every call gives the same schemas', () => {
    expect(streamEventSchemas()).toBe(streamEventSchemas());
    expect(streamEventSchemas().messageStartEventSchema).toBe(streamEventSchemas().messageStartEventSchema);
  });

  it('check the very types the sets written beside them name (the sets are read without building them)', () => {
    const schemas = streamEventSchemas();
    expect(new Set(typesOf(schemas.coreBlockStartSchema.options))).toEqual(CORE_BLOCK_TYPES);
    expect(new Set(typesOf(schemas.knownDeltaSchema.options))).toEqual(KNOWN_DELTA_TYPES);
    expect(new Set(typesOf(schemas.streamEventSchema.options))).toEqual(KNOWN_STREAM_EVENT_TYPES);
  });

  it('still refuse a core block start with wrong fields and keep another type whole', () => {
    const { contentBlockStartEventSchema } = streamEventSchemas();
    expect(contentBlockStartEventSchema.safeParse({ type: 'content_block_start', index: 0, content_block: { type: 'text' } }).success).toBe(false);
    const other = { type: 'content_block_start', index: 1, content_block: { type: 'server_tool_use', id: 's', name: 'web_search', input: {} } };
    expect(contentBlockStartEventSchema.parse(other)).toEqual(other);
  });
});
