// @agentforge/mcp-client: talk to many MCP servers from one Node.js process — persistent connections,
// discovery, health, reload, classified errors. Node.js only: it spawns stdio servers and writes their
// stderr logs (see README "Why Node.js only").

// The manager: many servers, one persistent connection each
export {
  MCPClientManager,
  type MCPClientManagerOptions,
  type MCPConfigChanges,
} from "./mcp-client-manager.js";

// Options of a call, the manager's events, health and status
export type {
  CallToolResult,
  MCPCallToolOptions,
  MCPClientManagerEventName,
  MCPClientManagerEvents,
  MCPConnectedEvent,
  MCPConnectionFailedEvent,
  MCPConnectionStatus,
  MCPDisconnectedEvent,
  MCPDisconnectReason,
  MCPHealthChangedEvent,
  MCPHealthStatus,
  MCPInputRound,
  MCPInputRoundMode,
  MCPListenerErrorEvent,
  MCPServerHealth,
  MCPToolsChangedEvent,
} from "./types.js";

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
  type MCPToolExecution,
  type MCPToolProblem,
  type MCPToolProblemCode,
  type MCPToolSource,
  requiresTaskExecution,
  toolUnavailableReason,
} from "./discover-tools.js";

// Resources and prompts
export {
  MAX_CONTENT_CHARS,
  MAX_LIST_ITEMS,
  type MCPGetPromptResult,
  type MCPListOptions,
  type MCPPage,
  type MCPPrompt,
  type MCPPromptArgument,
  type MCPPromptContent,
  type MCPPromptMessage,
  type MCPPromptPage,
  type MCPReadOptions,
  type MCPReadResourceResult,
  type MCPResource,
  type MCPResourceContents,
  type MCPResourcePage,
  type MCPResourceTemplate,
  type MCPResourceTemplatePage,
} from "./resources.js";

// Elicitation (servers asking the user for input)
export type {
  MCPElicitationContext,
  MCPElicitationFieldSchema,
  MCPElicitationFormRequest,
  MCPElicitationHandler,
  MCPElicitationRequest,
  MCPElicitationResult,
  MCPElicitationSchema,
  MCPElicitationUrlRequest,
  MCPElicitationValue,
} from "./elicitation.js";

// OAuth logins (grant authorization_code)
export {
  type MCPAuthorizeContext,
  type MCPAuthorizeFunction,
  MCPMemoryTokenStore,
  type MCPOAuthDpopKey,
  type MCPOAuthRecord,
  type MCPOAuthTokenStore,
  openInBrowser,
} from "./oauth-token-store.js";

// Transports
export { type CreateTransportOptions, createTransport } from "./create-transport.js";
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  type MCPStdioRedactor,
  MCPStdioTransport,
  type MCPStdioTransportOptions,
  REPLY_TOO_LARGE_RPC_CODE,
  type ReplyTooLargeData,
} from "./mcp-stdio-transport.js";

// SDK types that appear in this API, re-exported for convenience
export type { Progress } from "@modelcontextprotocol/client";

// Errors
export {
  MCPCapabilityError,
  type MCPCapabilityErrorCode,
  type MCPCapabilityErrorOptions,
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
