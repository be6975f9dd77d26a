// undici's files behind its index, as `src/transport/undiciParts.ts` loads them (undici ships no
// declarations for them; each file's module.exports is the class or object its index re-exports).
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';
  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const EnvHttpProxyAgentClass: typeof EnvHttpProxyAgent;
  export default EnvHttpProxyAgentClass;
}
declare module 'undici/lib/api/index.js' {
  const api: Record<string, unknown>;
  export default api;
}
declare module 'undici/lib/handler/unwrap-handler.js' {
  import type { Dispatcher } from 'undici';
  /** What undici wraps a handler of its newer API (`onRequestStart`, `onResponseData`, ...) in, once per request. */
  interface UnwrapHandler {
    onConnect(abort: (reason?: Error) => void, context?: unknown): void;
  }
  const UnwrapHandlerClass: { unwrap(handler: Dispatcher.DispatchHandler): UnwrapHandler };
  export default UnwrapHandlerClass;
}
