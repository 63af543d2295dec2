import type { EnvSource, MCPServerConfig } from "@agentforge/mcp-config";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { buildTransport } from "./internal/build-transport.js";
import type { MCPAuthorizeFunction, MCPOAuthTokenStore } from "./oauth-token-store.js";

/** Options of `createTransport` (the manager passes its own). */
export interface CreateTransportOptions {
  /** Where variable NAMES are looked up (default `process.env`). */
  env?: EnvSource;
  /** What `${NODE}` expands to (default `process.execPath`). */
  nodePath?: string;
  /** Folder of `<server>.stderr.log` files (default `logs/mcp`); `false` keeps stderr in memory only. */
  logDir?: string | false;
  /** Message-size limit for stdio servers without `maxMessageBytes` (default 64 MiB). */
  maxMessageBytes?: number;
  /** Extra variable names passed to stdio children, besides HOME, LOGNAME, PATH, SHELL, TERM, USER. */
  inheritEnv?: readonly string[];
  /** For http servers: which transport to build (default Streamable HTTP). */
  http?: "streamable-http" | "sse";
  /** stdio: grace period of each shutdown step (default 1000 ms). */
  shutdownGraceMs?: number;
  /** `grant: authorization_code`: where logins are kept (default: memory, per manager). */
  tokenStore?: MCPOAuthTokenStore;
  /**
   * `grant: authorization_code`: where a browser is opened for a login. Default: print the URL and try
   * the system browser when stdin is a terminal; otherwise (and with `false`) a login fails with
   * `AUTH_REQUIRED` ("needs login").
   */
  authorize?: MCPAuthorizeFunction | false;
  /** `grant: authorization_code`: how long a login may take (default 300000 ms). */
  loginTimeoutMs?: number;
}

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
