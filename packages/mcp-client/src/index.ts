// @agentforge/mcp-client: talk to many MCP servers from one Node.js process — persistent connections,
// discovery, health, reload, classified errors. Node.js only: it spawns stdio servers and writes their
// stderr logs (see README "Why Node.js only").

// SDK types that appear in this API, re-exported for convenience.
export type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
// Transports
export { type CreateTransportOptions, createTransport } from "./create-transport.js";
// Discovery
export {
  type DiscoveredTool,
  type DiscoverOptions,
  discoverAll,
  discoverTools,
  type MCPDiscoveryResult,
  type MCPJsonSchema,
  type MCPServerDiscovery,
  type MCPToolAnnotations,
} from "./discover-tools.js";
// Errors
export {
  type MCPClientErrorCode,
  MCPConnectionError,
  type MCPConnectionErrorCode,
  type MCPConnectionErrorOptions,
  type MCPConnectionKind,
  MCPRequestError,
  type MCPRequestErrorCode,
  type MCPRequestErrorOptions,
  MCPServerNotFoundError,
  type MCPServerNotFoundErrorCode,
  type MCPServerNotFoundErrorOptions,
  MCPTimeoutError,
  type MCPTimeoutErrorCode,
  type MCPTimeoutErrorOptions,
} from "./errors.js";
// The manager
export {
  type MCPCallToolOptions,
  MCPClientManager,
  type MCPClientManagerEventName,
  type MCPClientManagerEvents,
  type MCPClientManagerOptions,
  type MCPConfigChanges,
  type MCPConnectedEvent,
  type MCPConnectionFailedEvent,
  type MCPConnectionStatus,
  type MCPDisconnectedEvent,
  type MCPDisconnectReason,
  type MCPHealthChangedEvent,
  type MCPHealthStatus,
  type MCPListenerErrorEvent,
  type MCPServerHealth,
  type MCPToolsChangedEvent,
} from "./mcp-client-manager.js";
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  type MCPStdioRedactor,
  MCPStdioTransport,
  type MCPStdioTransportOptions,
  REPLY_TOO_LARGE_RPC_CODE,
  type ReplyTooLargeData,
} from "./mcp-stdio-transport.js";
// OAuth logins (grant authorization_code)
export {
  type MCPAuthorizeContext,
  type MCPAuthorizeFunction,
  MCPMemoryTokenStore,
  type MCPOAuthRecord,
  type MCPOAuthTokenStore,
  openInBrowser,
} from "./oauth-token-store.js";
