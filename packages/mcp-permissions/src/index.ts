// @agentforge/mcp-permissions: which agent may call which MCP tool. Plain data in, decision out; no I/O.

// Errors
export {
  MCPApprovalsSnapshotError,
  MCPDuplicateToolError,
  MCPPermissionDeniedError,
  type MCPPermissionsErrorCode,
} from "./errors.js";
// Policy
export {
  type MCPAgentGrant,
  type MCPPatternGrant,
  type MCPPermissionBasis,
  type MCPPermissionDecision,
  type MCPPermissionGrants,
  MCPPermissionPolicy,
  type MCPPermissionPolicyOptions,
} from "./mcp-permission-policy.js";
// Registry
export {
  type MCPApprovalsSnapshot,
  type MCPServerRejection,
  type MCPToolDefinitionChange,
  MCPToolRegistry,
  type MCPToolRegistryDiff,
  type MCPToolRegistryEvents,
} from "./mcp-tool-registry.js";
// Identities
export { type MCPToolDescriptor, parseToolIdentity, toolIdentity } from "./tool-identity.js";
