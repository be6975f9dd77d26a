/**
 * The MCP SDK's `OAuthClientProvider` for one remote server, over a credential store. The SDK's
 * `auth()` does the protocol (discovery, dynamic client registration, PKCE, the code exchange,
 * refresh); this only says who we are and keeps what it hands us.
 *
 * Two uses:
 * - `sign-in` (the `/mcp` and `rxagent mcp login` flow): the redirect URI is the loopback
 *   callback listening now, and the authorization URL is handed to `onAuthorizationUrl` (the
 *   browser is opened, or the URL is shown).
 * - `connect` (every run): the stored tokens are sent, a 401 refreshes them through the SDK; when
 *   only a new sign-in would help, nothing is opened: `needsSignIn()` turns true and the SDK's
 *   transport fails with `UnauthorizedError`, which the connection reports as `needs-auth`.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthSettings } from '../config.js';
import type { McpCredentialStore } from './credentialStore.js';

export type McpOAuthMode =
  | { readonly kind: 'sign-in'; readonly redirectUrl: string; readonly onAuthorizationUrl: (url: URL) => void | Promise<void> }
  | { readonly kind: 'connect' };

export interface McpOAuthProvider extends OAuthClientProvider {
  /** The `state` this provider sent (the callback must bring the same one back). */
  readonly sentState: () => string | undefined;
  /** In `connect` mode: the server wants a new sign-in (no usable token, refresh refused). */
  readonly needsSignIn: () => boolean;
}

export function createMcpOAuthProvider(
  server: { readonly name: string; readonly url: string; readonly oauth?: McpOAuthSettings },
  store: McpCredentialStore,
  mode: McpOAuthMode,
): McpOAuthProvider {
  const entry = () => store.get(server.name, server.url);
  const update = (change: Parameters<McpCredentialStore['update']>[2]) => store.update(server.name, server.url, change);
  const redirectUrl = mode.kind === 'sign-in' ? mode.redirectUrl : entry()?.redirectUrl;
  let verifier: string | undefined;
  let state: string | undefined;
  let signInNeeded = false;

  return {
    get redirectUrl() {
      // Without one the SDK would take this for a non-interactive (client credentials) client.
      return redirectUrl ?? 'http://localhost/callback';
    },
    get clientMetadata(): OAuthClientMetadata {
      return {
        client_name: 'rxagent',
        redirect_uris: [redirectUrl ?? 'http://localhost/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        // A public client: a CLI cannot keep a secret, PKCE protects the code instead.
        token_endpoint_auth_method: server.oauth?.clientSecret === undefined ? 'none' : 'client_secret_post',
        ...(server.oauth?.scopes !== undefined ? { scope: server.oauth.scopes } : {}),
      };
    },
    state() {
      state = randomBytes(24).toString('base64url');
      return state;
    },
    clientInformation(): OAuthClientInformationMixed | undefined {
      const stored = entry()?.clientInformation;
      if (stored) return stored;
      // A client registered by hand with the server (no dynamic registration there).
      const clientId = server.oauth?.clientId;
      return clientId === undefined ? undefined : { client_id: clientId, ...(server.oauth?.clientSecret !== undefined ? { client_secret: server.oauth.clientSecret } : {}) };
    },
    saveClientInformation(clientInformation) {
      update({ clientInformation, ...(redirectUrl !== undefined ? { redirectUrl } : {}) });
    },
    tokens: () => entry()?.tokens,
    saveTokens(tokens: OAuthTokens) {
      update({ tokens, savedAt: Date.now() });
    },
    async redirectToAuthorization(authorizationUrl: URL) {
      if (mode.kind === 'sign-in') return mode.onAuthorizationUrl(authorizationUrl);
      // A run never opens a browser by itself: it reports the server as needing a sign-in.
      signInNeeded = true;
    },
    saveCodeVerifier(codeVerifier: string) {
      verifier = codeVerifier;
    },
    codeVerifier() {
      if (verifier === undefined) throw new Error('no PKCE code verifier was saved for this sign-in');
      return verifier;
    },
    discoveryState: () => entry()?.discoveryState,
    saveDiscoveryState(discoveryState: OAuthDiscoveryState) {
      update({ discoveryState });
    },
    invalidateCredentials(scope) {
      switch (scope) {
        case 'all':
          store.remove(server.name, server.url);
          break;
        case 'client':
          update({ clientInformation: undefined });
          break;
        case 'tokens':
          update({ tokens: undefined, savedAt: undefined });
          break;
        case 'verifier':
          verifier = undefined;
          break;
        case 'discovery':
          update({ discoveryState: undefined });
          break;
      }
    },
    sentState: () => state,
    needsSignIn: () => signInNeeded,
  };
}
