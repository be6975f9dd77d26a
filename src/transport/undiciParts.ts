/**
 * The undici dispatchers the client builds, loaded from undici's own files rather than its index.
 * The index also loads fetch, WebSocket, cookies, caches, mocks and interceptors, and its cookie
 * module makes node load its own bundled copy of undici too: about half of a command's start-up
 * CPU before its first request (issue 20 §3). The classes are the same ones the index exports
 * (one module each), so a dispatcher made with `undici` itself works the same.
 *
 * `request()` on a dispatcher is undici's API mix-in, which the index applies to
 * `Dispatcher.prototype`; it is applied here the same way (again, harmlessly, if the index loads).
 */
import type * as Undici from 'undici';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgentClass from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import dispatcherApi from 'undici/lib/api/index.js';

Object.assign(DispatcherClass.prototype, dispatcherApi);

/** undici's pooled `Agent`. */
export const Agent: typeof Undici.Agent = AgentClass;
/** undici's `EnvHttpProxyAgent` (HTTP(S)_PROXY / NO_PROXY). */
export const EnvHttpProxyAgent: typeof Undici.EnvHttpProxyAgent = EnvHttpProxyAgentClass;
