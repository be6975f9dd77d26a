/**
 * Signing in to a remote MCP server with OAuth (what `/mcp login <server>` and
 * `rxagent mcp login <server>` do), on the MCP SDK's `auth()`:
 *
 * 1. a loopback callback listens (loopbackCallback.ts);
 * 2. `auth()` discovers the authorization server (RFC 9728, RFC 8414), registers us dynamically
 *    when no client is known (RFC 7591), and builds the authorization URL with PKCE;
 * 3. the person opens it (`onAuthorizationUrl`: the browser, or the URL shown) and approves;
 * 4. the browser comes back to the callback with the code and our `state`;
 * 5. `auth()` exchanges the code for tokens, saved in the credential store.
 *
 * A sign-in is always a new authorization: the server's old tokens are dropped first (a
 * sign-in after a refused refresh, or to switch accounts, must not quietly reuse them).
 */
import type { McpRemoteServerConfig } from '../config.js';
import { createMcpOAuthProvider, type McpOAuthProvider } from './clientProvider.js';
import type { McpCredentialStore } from './credentialStore.js';
import { listenForCallback, McpSignInError } from './loopbackCallback.js';

export interface SignInOptions {
  readonly store: McpCredentialStore;
  /** Show or open the authorization URL; the sign-in then waits for the browser to come back. */
  readonly onAuthorizationUrl: (url: URL) => void | Promise<void>;
  /** Stops the wait (Ctrl-C, the run ending). */
  readonly signal: AbortSignal;
}

export { McpSignInError };

export async function signInToMcpServer(name: string, config: McpRemoteServerConfig, options: SignInOptions): Promise<void> {
  let provider: McpOAuthProvider | undefined;
  const callback = await listenForCallback(config.oauth?.callbackPort, name, () => provider?.sentState());
  try {
    const stored = options.store.get(name, config.url);
    // A client registered for another redirect URI (another free port last time) cannot use
    // this one: register again. A client configured by hand keeps its id.
    const registeredElsewhere = stored?.clientInformation !== undefined && stored.redirectUrl !== callback.redirectUrl;
    options.store.update(name, config.url, { tokens: undefined, savedAt: undefined, ...(registeredElsewhere ? { clientInformation: undefined } : {}) });
    provider = createMcpOAuthProvider({ name, url: config.url, ...(config.oauth ? { oauth: config.oauth } : {}) }, options.store, {
      kind: 'sign-in',
      redirectUrl: callback.redirectUrl,
      onAuthorizationUrl: options.onAuthorizationUrl,
    });
    // The SDK is loaded only when someone signs in.
    const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
    const first = await auth(provider, { serverUrl: config.url }).catch((error: unknown) => {
      throw new McpSignInError(`could not start the sign-in to "${name}": ${messageOf(error)}`);
    });
    if (first === 'AUTHORIZED') return;
    const code = await callback.code(options.signal);
    const result = await auth(provider, { serverUrl: config.url, authorizationCode: code }).catch((error: unknown) => {
      throw new McpSignInError(`the authorization server did not give "${name}" a token: ${messageOf(error)}`);
    });
    if (result !== 'AUTHORIZED') throw new McpSignInError(`the sign-in to "${name}" did not end with a token`);
  } finally {
    await callback.close();
  }
}

/** Whether a server can be signed in to (only remote servers speak OAuth). */
export function isRemoteServer(config: { readonly type?: string }): config is McpRemoteServerConfig {
  return config.type === 'http' || config.type === 'sse';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
