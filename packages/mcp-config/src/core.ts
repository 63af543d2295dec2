// @agentforge/mcp-config/core: everything of the root entry that works without zod — the types of a
// parsed roster, connect-time resolution, display and secret redaction, permission patterns, the name
// patterns and the errors. Importing it never loads zod or yaml, so a command-line tool that only
// loads and prints a roster (with `loadMCPConfig` from `/node`, which needs zod only for an invalid
// file) starts fast. The zod schemas, `mcpConfigJsonSchema`, the synchronous parsers and
// `stringifyMCPConfig` are on the root entry, which re-exports all of this.

// A parsed roster: its servers, their transports and auth, the agents' permissions
export type { MCPConfig, MCPConfigFormat, MCPConfigVariable } from "./parse-mcp-config.js";
export type {
  MCPServerConfig,
  MCPStdioServerConfig,
  MCPHttpServerConfig,
  MCPTransportType,
  MCPAuthConfig,
  MCPPermissionsConfig,
  MCPAgentPermissions,
  MCPPatternLists,
  MCPToolSearchConfig,
  MCPToolSearchMode,
  MCPProtocolVersionSetting,
} from "./schema.js";

// Resolution at connect time: placeholders, environment, auth headers
export {
  resolvePlaceholders,
  resolvedEnv,
  resolvedAuthHeaders,
  type ResolvePlaceholdersOptions,
  type EnvSource,
} from "./resolve.js";

// Display: a roster without its secrets, and which variables it reads
export {
  redactedConfig,
  configVariables,
  type RedactedMCPServerConfig,
  type MCPConfigVariableStatus,
} from "./redacted-config.js";

// Secret redaction (every form of a value, also across stream chunks)
export {
  createSecretRedactor,
  SecretRedactor,
  type SecretRedactorStream,
  secretForms,
  REDACTED_MARKER,
  MIN_SECRET_LENGTH,
} from "./secret-redactor.js";

// Untrusted text made safe for a terminal, a page, a log or a model (the one cleaner)
export { cleanText, escapeJsonText, type CleanTextOptions } from "./clean-text.js";

// Permission patterns (tools, prompts, resources)
export {
  permissionPatternProblem,
  promptPatternProblem,
  resourcePatternProblem,
  resourceUriProblem,
  canonicalResourceUri,
  type CanonicalResourceUri,
  MAX_RESOURCE_URI_LENGTH,
} from "./permission-pattern.js";

// Grants checked against the roster: patterns that name a server it does not define
export {
  findGrantServerProblems,
  grantServerIssues,
  type MCPGrantServerProblem,
} from "./grant-servers.js";

// "Did you mean": the closest of a list of names
export { suggestName } from "./suggest-name.js";

// The event mechanism every package uses: `on(event, listener)` returns the unsubscribe function
export {
  emitProcessWarning,
  MCPEventEmitter,
  type MCPEventEmitterOptions,
  type MCPEventListener,
  reportListenerError,
} from "./event-emitter.js";

// Names
export { SERVER_NAME_PATTERN, AGENT_NAME_PATTERN, ENV_VAR_NAME_PATTERN } from "./internal/names.js";

// Errors
export {
  MCPConfigError,
  type MCPConfigErrorCode,
  type MCPConfigErrorOptions,
  type MCPConfigIssue,
  MCPError,
  type MCPErrorOptions,
} from "./errors.js";
