// @agentforge/mcp-config/core: everything of the root entry that works without zod — errors,
// placeholders, connect-time resolution, display and secret redaction, permission patterns, the name
// patterns and the types. Importing it never loads zod or yaml, so a command-line tool that only
// loads and prints a roster (with `loadMCPConfig` from `/node`, which needs zod only for an invalid
// file) starts fast. The zod schemas, `mcpConfigJsonSchema`, the synchronous parsers and
// `stringifyMCPConfig` stay on the root entry.

// Errors
export {
  MCPConfigError,
  type MCPConfigErrorCode,
  type MCPConfigErrorOptions,
  type MCPConfigIssue,
  MCPError,
  type MCPErrorOptions,
} from "./errors.js";
// Names
export { AGENT_NAME_PATTERN, ENV_VAR_NAME_PATTERN, SERVER_NAME_PATTERN } from "./internal/names.js";
// Types of a parsed config
export type { MCPConfig, MCPConfigFormat, MCPConfigVariable } from "./parse-mcp-config.js";
// Permission patterns (tools, prompts, resources)
export {
  MAX_RESOURCE_URI_LENGTH,
  permissionPatternProblem,
  promptPatternProblem,
  resourcePatternProblem,
  resourceUriProblem,
} from "./permission-pattern.js";
// Display
export {
  configVariables,
  type MCPConfigVariableStatus,
  type RedactedMCPServerConfig,
  redactedConfig,
} from "./redacted-config.js";
// Resolution at connect time
export {
  type EnvSource,
  type ResolvePlaceholdersOptions,
  resolvedAuthHeaders,
  resolvedEnv,
  resolvePlaceholders,
} from "./resolve.js";
export type {
  MCPAgentPermissions,
  MCPAuthConfig,
  MCPHttpServerConfig,
  MCPPatternLists,
  MCPPermissionsConfig,
  MCPServerConfig,
  MCPStdioServerConfig,
  MCPTransportType,
} from "./schema.js";
// Secret redaction
export {
  createSecretRedactor,
  MIN_SECRET_LENGTH,
  REDACTED_MARKER,
  SecretRedactor,
  type SecretRedactorStream,
  secretForms,
} from "./secret-redactor.js";
