/**
 * Input schemas whose JSON Schema is written out in the source, so `defineTool` need not convert
 * them with `z.toJSONSchema` at every start.
 *
 * Converting is real work at the command's start (issue 20 §3): the seven tools of a `-p` run
 * took ~2.8 ms, warm, before the first request. A schema that never changes (the built-in tools',
 * the Agent tool's) is registered here with its JSON Schema written out
 * (builtinInputJsonSchemas.ts). test/tools/precomputedJsonSchema.test.ts converts every
 * registered schema afresh and compares the JSON text, so the two can never drift. A schema that
 * is not registered (a tool of the user's, Bash under other timeout limits) is converted as before.
 */
const registered = new WeakMap<object, Readonly<Record<string, unknown>>>();

/** Registers `schema`'s input-side JSON Schema (as `z.toJSONSchema` gives it, without `$schema`); returns `schema`. */
export function withPrecomputedJsonSchema<S extends object>(schema: S, jsonSchema: Readonly<Record<string, unknown>>): S {
  registered.set(schema, jsonSchema);
  return schema;
}

/**
 * The registered JSON Schema of `schema`, as a fresh copy (each tool owns its object, as a
 * conversion would give it), or undefined if it has none.
 */
export function precomputedJsonSchemaOf(schema: object): Record<string, unknown> | undefined {
  const jsonSchema = registered.get(schema);
  return jsonSchema === undefined ? undefined : structuredClone(jsonSchema);
}
