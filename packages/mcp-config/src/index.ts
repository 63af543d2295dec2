// @agentforge/mcp-config: the MCP server roster — schema, parsing, validation, placeholders, secrets.
// Loading from disk lives in `@agentforge/mcp-config/node`.

// Errors
export {
  MCPConfigError,
  type MCPConfigErrorCode,
  type MCPConfigErrorOptions,
  type MCPConfigIssue,
  MCPError,
  type MCPErrorOptions,
} from "./errors.js";
export { MCP_CONFIG_SCHEMA_ID, mcpConfigJsonSchema } from "./json-schema.js";
// Parsing
export {
  type MCPConfig,
  type MCPConfigFormat,
  type MCPConfigVariable,
  type ParseMCPConfigObjectOptions,
  type ParseMCPConfigOptions,
  parseMCPConfig,
  parseMCPConfigObject,
  parseMCPServerConfigs,
} from "./parse-mcp-config.js";
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
// Schema and types
export {
  AGENT_NAME_PATTERN,
  authConfigSchema,
  type ConfigFile,
  configFileSchema,
  ENV_VAR_NAME_PATTERN,
  type MCPAgentPermissions,
  type MCPAuthConfig,
  type MCPHttpServerConfig,
  type MCPPatternLists,
  type MCPPermissionsConfig,
  type MCPServerConfig,
  type MCPStdioServerConfig,
  type MCPTransportType,
  OAUTH_SIGNING_ALGORITHMS,
  permissionsSchema,
  SERVER_NAME_PATTERN,
  type ServerEntry,
  serverEntrySchema,
} from "./schema.js";
// Secret redaction (every form of a value, also across stream chunks)
export {
  createSecretRedactor,
  MIN_SECRET_LENGTH,
  REDACTED_MARKER,
  SecretRedactor,
  type SecretRedactorStream,
  secretForms,
} from "./secret-redactor.js";
export { stringifyMCPConfig } from "./stringify-mcp-config.js";
