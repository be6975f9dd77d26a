/**
 * In-process MCP servers of the SDK host (`createSdkMcpServer`, named in `initialize`'s
 * `sdkMcpServers`): the server lives in the host's process, so every JSON-RPC message to it
 * travels as an `mcp_message` control request and its answer comes back as `mcp_response`.
 *
 * This is an MCP `Transport` over the control channel, handed to the MCP layer as a
 * `{ type: "transport" }` server: the MCP client, tool adapter, naming (`mcp__<server>__<tool>`),
 * permissions and limits are the same as for any other server. A request's answer is delivered
 * to `onmessage` as the server's reply; a notification's (the host acknowledges it with an
 * empty result) is dropped. A host that fails or never answers (the channel's bound) fails the
 * request with a JSON-RPC error reply, so the MCP client reports it like a broken server.
 * What the server sends on its own (a `tools/list_changed` notification, a request to the client)
 * comes from the host as an `mcp_message` request to us, delivered to the live connection.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../mcp/config.js';
import type { ControlChannel } from './controlChannel.js';

/** JSON-RPC's "internal error" code, for a host that could not answer. */
const INTERNAL_ERROR = -32603;

function requestIdOf(message: JSONRPCMessage): string | number | undefined {
  return 'method' in message && 'id' in message ? (message.id as string | number) : undefined;
}

class SdkMcpBridgeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  private readonly inFlight = new AbortController();

  constructor(
    private readonly channel: ControlChannel,
    private readonly serverName: string,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error(`the connection to SDK MCP server ${this.serverName} is closed`);
    const id = requestIdOf(message);
    const answer = this.channel.request({ subtype: 'mcp_message', server_name: this.serverName, message }, this.inFlight.signal);
    if (id === undefined) {
      // A notification or our reply to the server: the host's acknowledgement carries nothing.
      answer.catch((error: unknown) => this.onerror?.(error as Error));
      return;
    }
    answer.then(
      (payload) => {
        if (!this.closed) this.onmessage?.(payload['mcp_response'] as JSONRPCMessage);
      },
      (error: unknown) => {
        if (this.closed) return;
        this.onmessage?.({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: (error as Error).message } });
      },
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.inFlight.abort();
    this.onclose?.();
  }
}

/** The open connection of each in-process server, by name: where the server's own messages go. */
export type LiveBridges = Map<string, { deliver(message: JSONRPCMessage): void }>;

/** The MCP server configs of the host's in-process servers, by name; each connection registers in `live` while open. */
export function sdkMcpServerConfigs(names: readonly string[], channel: ControlChannel, live?: LiveBridges): Record<string, McpServerConfig> {
  const open = (name: string) => {
    const transport = new SdkMcpBridgeTransport(channel, name);
    const entry = { deliver: (message: JSONRPCMessage) => transport.onmessage?.(message) };
    live?.set(name, entry);
    const close = transport.close.bind(transport);
    transport.close = async () => {
      if (live?.get(name) === entry) live.delete(name);
      await close();
    };
    return transport;
  };
  return Object.fromEntries(names.map((name) => [name, { type: 'transport' as const, transport: () => open(name) }]));
}
