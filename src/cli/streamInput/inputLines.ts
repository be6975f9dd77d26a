/**
 * The lines a host writes on stdin with `--input-format stream-json` (the Claude Agent SDK's
 * protocol): user messages, control requests to us, control responses to our requests, and
 * cancellations. Each line is parsed into a typed union; a line that is not JSON, or not one of
 * these shapes, becomes `malformed` / `unknown` with a message naming the problem, so the
 * session can say so and go on instead of crashing.
 */
import { z } from 'zod';
import { messageParamSchema, type MessageParam } from '../../protocol/content.js';
import { issuesText } from '../../util/issuesText.js';

export const userInputLineSchema = z.looseObject({
  type: z.literal('user'),
  message: messageParamSchema.refine((m) => m.role === 'user', { message: 'role must be user' }),
  session_id: z.string().optional(),
  parent_tool_use_id: z.string().nullable().optional(),
  uuid: z.string().optional(),
  /** The host composed the text (the SDK's verbatimPrompts): delivered as written, no command dispatch. */
  client_composed: z.boolean().optional(),
});

export const controlRequestLineSchema = z.looseObject({
  type: z.literal('control_request'),
  request_id: z.string().min(1),
  request: z.looseObject({ subtype: z.string() }),
});

export const controlResponseLineSchema = z.looseObject({
  type: z.literal('control_response'),
  response: z.union([
    z.looseObject({ subtype: z.literal('success'), request_id: z.string(), response: z.record(z.string(), z.unknown()).optional() }),
    z.looseObject({ subtype: z.literal('error'), request_id: z.string(), error: z.string() }),
  ]),
});

export const controlCancelLineSchema = z.looseObject({
  type: z.literal('control_cancel_request'),
  request_id: z.string(),
});

export type ControlRequestLine = z.infer<typeof controlRequestLineSchema>;
export type ControlResponseLine = z.infer<typeof controlResponseLineSchema>;

/** One stdin line, classified. */
export type InputLine =
  | { readonly kind: 'user'; readonly message: MessageParam; readonly uuid: string | undefined; readonly composed: boolean; readonly raw: Record<string, unknown> }
  | { readonly kind: 'control_request'; readonly line: ControlRequestLine }
  | { readonly kind: 'control_response'; readonly line: ControlResponseLine }
  | { readonly kind: 'control_cancel'; readonly requestId: string }
  /** `keep_alive` and blank lines: nothing to do. */
  | { readonly kind: 'ignored' }
  | { readonly kind: 'malformed'; readonly message: string }
  | { readonly kind: 'unknown'; readonly type: string };

const firstBytes = (text: string): string => (text.length > 80 ? `${text.slice(0, 80)}...` : text);

function issuesOf(error: z.ZodError): string {
  return issuesText(error.issues, { whole: '(line)' });
}

export function parseInputLine(text: string): InputLine {
  if (text.trim() === '') return { kind: 'ignored' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: 'malformed', message: `not JSON (${(error as Error).message}): ${firstBytes(text)}` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { kind: 'malformed', message: `not a JSON object: ${firstBytes(text)}` };
  }
  const type = (json as { type?: unknown }).type;
  const check = <S extends z.ZodType>(schema: S): z.infer<S> | string => {
    const parsed = schema.safeParse(json);
    return parsed.success ? parsed.data : `invalid ${String(type)} line: ${issuesOf(parsed.error)}`;
  };
  switch (type) {
    case 'user': {
      const line = check(userInputLineSchema);
      if (typeof line === 'string') return { kind: 'malformed', message: line };
      return { kind: 'user', message: line.message, uuid: line.uuid, composed: line.client_composed === true, raw: json as Record<string, unknown> };
    }
    case 'control_request': {
      const line = check(controlRequestLineSchema);
      return typeof line === 'string' ? { kind: 'malformed', message: line } : { kind: 'control_request', line };
    }
    case 'control_response': {
      const line = check(controlResponseLineSchema);
      return typeof line === 'string' ? { kind: 'malformed', message: line } : { kind: 'control_response', line };
    }
    case 'control_cancel_request': {
      const line = check(controlCancelLineSchema);
      return typeof line === 'string' ? { kind: 'malformed', message: line } : { kind: 'control_cancel', requestId: line.request_id };
    }
    case 'keep_alive':
      return { kind: 'ignored' };
    default:
      return typeof type === 'string' ? { kind: 'unknown', type } : { kind: 'malformed', message: `a line without a string "type": ${firstBytes(text)}` };
  }
}
