/**
 * `defineTool`: a `ToolSpec` with its defaults filled in and the JSON Schema the model sees,
 * computed once here rather than on every request.
 */
import { z } from 'zod';
import { ConfigurationError } from '../errors.js';
import { precomputedJsonSchemaOf } from './precomputedJsonSchema.js';
import type { Tool, ToolSpec } from './types.js';

/** The Messages API accepts tool names of 1-64 letters, digits, `_` and `-`. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Defines a tool.
 *
 * The input schema should be a `z.strictObject(...)`: then the JSON Schema says
 * `additionalProperties: false` and an unexpected parameter is reported to the model by name.
 *
 * ## Example
 * ```ts
 * import { z } from 'zod';
 * import { defineTool } from 'rxagent';
 *
 * const readFile = defineTool({
 *   name: 'Read',
 *   description: 'Read a text file',
 *   inputSchema: z.strictObject({ path: z.string() }),
 *   isConcurrencySafe: true,
 *   interruptBehavior: 'cancel',
 *   call: ({ path }, { signal }) => fs.readFile(path, { encoding: 'utf8', signal }),
 * });
 * ```
 *
 * @throws ConfigurationError if the name is not a valid API tool name or the input schema does
 * not describe a JSON object.
 */
export function defineTool<I, O>(spec: ToolSpec<I, O>): Tool<I, O> {
  if (!TOOL_NAME.test(spec.name)) {
    throw new ConfigurationError(`tool name ${JSON.stringify(spec.name)} must be 1-64 letters, digits, "_" or "-"`);
  }
  for (const alias of spec.aliases ?? []) {
    if (!TOOL_NAME.test(alias)) {
      throw new ConfigurationError(`alias ${JSON.stringify(alias)} of tool ${spec.name} is not a valid tool name`);
    }
  }
  // A built-in tool's schema has its conversion written out (precomputedJsonSchema.ts says why).
  let converted: Record<string, unknown> | undefined = precomputedJsonSchemaOf(spec.inputSchema);
  try {
    // 'input' describes what the model must send (defaults optional), not what parsing yields.
    converted ??= z.toJSONSchema(spec.inputSchema, { io: 'input' }) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigurationError(`the input schema of tool ${spec.name} cannot be sent as JSON Schema: ${message}`);
  }
  // `$schema` is noise to the model and costs tokens on every request.
  const { $schema: _dialect, ...jsonSchema } = converted;
  if (jsonSchema['type'] !== 'object') {
    throw new ConfigurationError(`the input schema of tool ${spec.name} must describe a JSON object`);
  }
  if (spec.maxResultSizeChars !== undefined && !(spec.maxResultSizeChars > 0)) {
    throw new ConfigurationError(`maxResultSizeChars of tool ${spec.name} must be a positive number`);
  }
  if (spec.timeoutMs !== undefined && !(spec.timeoutMs > 0)) {
    throw new ConfigurationError(`timeoutMs of tool ${spec.name} must be a positive number`);
  }
  return Object.freeze({
    ...spec,
    interruptBehavior: spec.interruptBehavior ?? 'block',
    jsonSchema: jsonSchema as Tool<I, O>['jsonSchema'],
  });
}
