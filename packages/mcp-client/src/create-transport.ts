import type { MCPServerConfig } from "@agentforge/mcp-config";
import type { Transport } from "@modelcontextprotocol/client";
import { buildTransport } from "./internal/transport/build-transport.js";
import type { CreateTransportOptions } from "./types.js";

export type { CreateTransportOptions } from "./types.js";

/**
 * An SDK `Transport` for one server config, not yet started (pass it to `Client.connect`):
 * stdio → `MCPStdioTransport` (placeholders resolved, `resolvedEnv` over a minimal safe environment,
 * stderr to `<logDir>/<server>.stderr.log`); http → the SDK's Streamable HTTP transport (or SSE with
 * `http: "sse"`) with `resolvedAuthHeaders`, OAuth (client_credentials with a secret or private_key_jwt, a
 * pre-issued token, or an authorization_code login already in `tokenStore`: only the manager can run a
 * new login) or mTLS.
 * Throws `MCPConnectionError` (`SERVER_MISCONFIGURED`) for unset variables or unreadable certificates.
 * The manager does all of this for you, plus the SSE fallback; use this for a hand-made `Client`.
 */
export async function createTransport(
  config: MCPServerConfig,
  options: CreateTransportOptions = {},
): Promise<Transport> {
  const built = await buildTransport(config, options);
  const close = built.transport.close.bind(built.transport);
  built.transport.close = async () => {
    try {
      await close();
    } finally {
      await built.dispose();
    }
  };
  return built.transport;
}
