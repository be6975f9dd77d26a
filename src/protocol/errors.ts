/** The API's error body: `{ type: 'error', error: { type, message } }`. */
import { z } from 'zod';

export const API_ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
] as const;
export type ApiErrorType = (typeof API_ERROR_TYPES)[number];

export const apiErrorBodySchema = z.looseObject({
  type: z.literal('error'),
  error: z.looseObject({
    // A string, not an enum: an error type we do not know must still decode as an error.
    type: z.string(),
    message: z.string(),
  }),
  request_id: z.string().optional(),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
