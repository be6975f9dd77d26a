/**
 * The last step before a request is sent, pure: prompt-caching breakpoints as Claude Code places
 * them (unless turned off) and the beta header the request's thinking needs.
 */
import { betasFor } from '../context/thinkingDefaults.js';
import { withCacheBreakpoints } from '../protocol/cacheBreakpoints.js';
import type { MessagesRequest } from '../protocol/request.js';
import type { StreamCallOptions } from '../transport/types.js';

export interface ShapedRequest {
  readonly request: MessagesRequest;
  /** Per-call options (the `anthropic-beta` header), undefined when none are needed. */
  readonly callOptions: StreamCallOptions | undefined;
}

export function shapeRequest(
  request: MessagesRequest,
  options: { readonly promptCaching: boolean; readonly messageBreakpoints?: number },
): ShapedRequest {
  const known = options.messageBreakpoints === undefined ? undefined : { messageBreakpoints: options.messageBreakpoints };
  const shaped = options.promptCaching ? withCacheBreakpoints(request, known) : request;
  const betas = betasFor(shaped);
  return { request: shaped, callOptions: betas.length === 0 ? undefined : { headers: { 'anthropic-beta': betas.join(',') } } };
}
