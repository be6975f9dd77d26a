/** Hook matchers: which tool names a matcher group applies to. */
import { ConfigurationError } from '../errors.js';

const NAME_LIST = /^[A-Za-z0-9_-]+(\|[A-Za-z0-9_-]+)*$/;

/**
 * Compiles a matcher: empty or `*` matches every tool; `Edit` or `Edit|Write` match those names
 * exactly; anything else is a regular expression that must match the whole tool name.
 */
export function compileToolMatcher(matcher: string | undefined): (toolName: string) => boolean {
  const m = matcher?.trim() ?? '';
  if (m === '' || m === '*') return () => true;
  if (NAME_LIST.test(m)) {
    const names = new Set(m.split('|'));
    return (toolName) => names.has(toolName);
  }
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${m})$`);
  } catch (error) {
    throw new ConfigurationError(`hook matcher ${JSON.stringify(m)} is not a valid regular expression: ${(error as Error).message}`);
  }
  return (toolName) => re.test(toolName);
}
