// @agentforge/mcp-permissions: which agent may call which MCP tool, read which resource and get which
// prompt. Plain data in, decision out; no I/O. Words used throughout: `identity` is `<server>.<tool>`,
// `serverName` the server's name, `toolName` the tool's name as its server lists it.

// The policy: grants per agent, deny by default
export {
  MCPPermissionPolicy,
  type MCPPermissionPolicyOptions,
  type MCPPermissionGrants,
  type MCPAgentGrant,
  type MCPPatternGrant,
  type MCPPermissionDecision,
  type MCPPermissionBasis,
  type MCPConfirmationBasis,
  type MCPDecideToolInfo,
  annotationsNeedConfirmation,
} from "./mcp-permission-policy.js";

// The registry: the tools that can be called, their definitions pinned and approved
export {
  MCPToolRegistry,
  type MCPToolRegistryEvents,
  type MCPRegistryListenerError,
  type MCPToolRegistryDiff,
  type MCPToolDefinitionChange,
  type MCPServerRejection,
  type MCPApprovalsSnapshot,
} from "./mcp-tool-registry.js";

// Identities
export { type MCPToolDescriptor, toolIdentity, parseToolIdentity } from "./tool-identity.js";

// Errors
export {
  MCPPermissionDeniedError,
  type MCPPermissionSubject,
  MCPDuplicateToolError,
  MCPApprovalsSnapshotError,
  type MCPPermissionsErrorCode,
} from "./errors.js";
