/**
 * Claude Code's proxy variables for model requests: `HTTPS_PROXY` / `HTTP_PROXY` (either case)
 * and `NO_PROXY`, through undici's `EnvHttpProxyAgent` (CONNECT tunnels for https, absolute-URI
 * requests for http, hosts in NO_PROXY sent directly). Read from the run's environment (settings
 * `env` included), not the process's, so two runs in one process (serve, fleet) each get theirs.
 * No proxy variable: undefined, and the client keeps its plain pooled agent.
 */
import type { Dispatcher } from 'undici';
import { EnvHttpProxyAgent } from '../transport/undiciParts.js';

export function proxyDispatcherFromEnv(env: Readonly<Record<string, string | undefined>>): Dispatcher | undefined {
  const pick = (name: string) => env[name.toLowerCase()] || env[name.toUpperCase()] || undefined;
  const httpProxy = pick('HTTP_PROXY');
  const httpsProxy = pick('HTTPS_PROXY');
  const either = httpsProxy ?? httpProxy;
  if (either === undefined) return undefined;
  const noProxy = pick('NO_PROXY');
  // One proxy variable serves both schemes (undici falls back from https to http; Claude Code's
  // users set HTTPS_PROXY alone, and a plain-http base URL, e.g. a local gateway, uses it too).
  // proxyTunnel false: a plain-http target is sent to the proxy as an absolute-URI request, as
  // curl and other clients do (https targets are always tunnelled with CONNECT).
  return new EnvHttpProxyAgent({ httpProxy: httpProxy ?? either, httpsProxy: httpsProxy ?? either, proxyTunnel: false, ...(noProxy === undefined ? {} : { noProxy }) });
}
