/**
 * `--json-schema` (the SDK's `outputFormat: { type: 'json_schema', schema }`): the model answers
 * by calling a `StructuredOutput` tool whose input schema is the given JSON Schema; the result
 * line carries that input as `structured_output`.
 *
 * - The tool validates the input itself (zod's `fromJSONSchema`), so it can count: a first
 *   invalid answer gets an error result listing the problems and the model tries again; a second
 *   invalid one ends the turn, and the result is `error_max_structured_output_retries`.
 * - A valid answer ends the turn at once (the tool's outcome `endsTurn`).
 * - The model ending its turn without calling the tool is reminded once (a Stop hook block);
 *   ending again without it is the same retry error.
 */
import { z } from 'zod';
import { defineTool } from '../tools/defineTool.js';
import type { Tool } from '../tools/types.js';
import type { StopHook } from '../loop/seams.js';
import { UsageError } from './args.js';
import { issuesText } from '../util/issuesText.js';

export const STRUCTURED_OUTPUT_TOOL = 'StructuredOutput';

/** Where one turn's structured answer stands. */
export type StructuredOutputState =
  | { readonly status: 'pending' }
  | { readonly status: 'provided'; readonly value: unknown }
  | { readonly status: 'failed'; readonly reason: string };

export interface StructuredOutput {
  readonly tool: Tool;
  /** Text for the system prompt: how to answer. */
  readonly instructions: string;
  /** Wraps the Stop hook: reminds the model once when it stops without calling the tool. */
  wrapStop(stop: StopHook | undefined): StopHook;
  /** A new turn starts: forget the previous answer. */
  reset(): void;
  state(): StructuredOutputState;
}

function parseSchema(text: string): Record<string, unknown> {
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--json-schema is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof schema !== 'object' || schema === null || (schema as { type?: unknown }).type !== 'object') {
    throw new UsageError('--json-schema must be a JSON Schema of an object ({"type": "object", ...})');
  }
  return schema as Record<string, unknown>;
}

export function createStructuredOutput(schemaText: string): StructuredOutput {
  const schema = parseSchema(schemaText);
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new UsageError(`--json-schema cannot be used: ${(error as Error).message}`);
  }
  let state: StructuredOutputState = { status: 'pending' };
  let invalidAnswers = 0;
  let reminded = false;

  const spec = defineTool({
    name: STRUCTURED_OUTPUT_TOOL,
    description: 'Give your final answer as structured data matching the input schema. Call this exactly once, at the end.',
    // The API gets the caller's schema below; the tool takes any object and checks it itself.
    inputSchema: z.record(z.string(), z.unknown()),
    isConcurrencySafe: true,
    call: (input) => {
      const checked = validator.safeParse(input);
      if (checked.success) {
        state = { status: 'provided', value: input };
        return { type: 'outcome' as const, output: 'Structured output provided.', endsTurn: true };
      }
      const problems = issuesText(checked.error.issues, { whole: '(input)' });
      invalidAnswers += 1;
      if (invalidAnswers > 1) {
        state = { status: 'failed', reason: `the structured output did not match the schema twice: ${problems}` };
        return { type: 'outcome' as const, output: `Invalid again (${problems}); giving up.`, endsTurn: true };
      }
      throw new Error(`The input does not match the required schema: ${problems}. Call ${STRUCTURED_OUTPUT_TOOL} again with a corrected input.`);
    },
  });
  const { type: _object, ...rest } = schema;
  const tool: Tool = { ...spec, jsonSchema: { type: 'object', ...rest } };

  return {
    tool,
    instructions: `When you have the final answer, call the ${STRUCTURED_OUTPUT_TOOL} tool with it (its input schema is the required format). That call is your final response.`,
    wrapStop: (stop) => (input) => {
      if (state.status === 'pending' && !reminded) {
        reminded = true;
        return { block: `You have not given the final answer yet: call the ${STRUCTURED_OUTPUT_TOOL} tool with it now.` };
      }
      if (state.status === 'pending') state = { status: 'failed', reason: `the model ended without calling ${STRUCTURED_OUTPUT_TOOL}` };
      return stop ? stop(input) : {};
    },
    reset: () => {
      state = { status: 'pending' };
      invalidAnswers = 0;
      reminded = false;
    },
    state: () => state,
  };
}
