/**
 * An MCP tool's JSON Schema as the zod input schema the tool pipeline validates with (SPEC §4
 * step 4), so a model's bad input gets the same InputValidationError text as a built-in tool's.
 * The input that passes is handed to the server exactly as the model wrote it: the server
 * applies its own defaults, we only check.
 */
import { z } from 'zod';

export type JsonObjectSchema = { readonly type: 'object'; readonly [key: string]: unknown };

export type CompiledInputSchema =
  | { readonly ok: true; readonly schema: z.ZodType<Record<string, unknown>>; readonly jsonSchema: JsonObjectSchema }
  | { readonly ok: false; readonly reason: string };

/**
 * Compiles a tool's `inputSchema`. A schema zod cannot read is refused (`ok: false`): offering
 * it would make the Messages API reject every request that carries the tool list.
 */
export function compileInputSchema(inputSchema: unknown): CompiledInputSchema {
  if (typeof inputSchema !== 'object' || inputSchema === null || (inputSchema as { type?: unknown }).type !== 'object') {
    return { ok: false, reason: 'its input schema does not describe a JSON object' };
  }
  let check: z.ZodType;
  try {
    check = z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    return { ok: false, reason: `its input schema cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  // `$schema` is noise to the model and costs tokens on every request (as for built-in tools).
  const { $schema: _dialect, ...jsonSchema } = inputSchema as Record<string, unknown>;
  const schema = z.looseObject({}).superRefine((input, ctx) => {
    const parsed = check.safeParse(input);
    if (parsed.success) return;
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as Parameters<typeof ctx.addIssue>[0]);
  });
  return { ok: true, schema, jsonSchema: jsonSchema as JsonObjectSchema };
}
