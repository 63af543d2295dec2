// @agentforge/mcp-config: the MCP server roster — schema, parsing, validation, placeholders, secrets.
// Loading from disk lives in `@agentforge/mcp-config/node`; the part that needs no zod is also
// `@agentforge/mcp-config/core`.

// Parsing and validating a roster (YAML text, a parsed object, or desktop-client JSON)
export {
  parseMCPConfig,
  parseMCPConfigObject,
  parseMCPServerConfigs,
  type ParseMCPConfigOptions,
  type ParseMCPConfigObjectOptions,
} from "./parse-mcp-config.js";
export { stringifyMCPConfig } from "./stringify-mcp-config.js";

// The schema: zod schemas of the file, and its JSON Schema for editors
export {
  configFileSchema,
  serverEntrySchema,
  authConfigSchema,
  permissionsSchema,
  toolSearchConfigSchema,
  TOOL_SEARCH_MODES,
  type ConfigFile,
  type ServerEntry,
  OAUTH_SIGNING_ALGORITHMS,
  PROTOCOL_VERSION_SETTINGS,
} from "./schema.js";
export { mcpConfigJsonSchema, MCP_CONFIG_SCHEMA_ID } from "./json-schema.js";

// Everything that needs no zod — the types of a parsed roster, resolution at connect time, display and
// secret redaction, permission patterns, names and errors — is the `/core` entry's, listed there.
export * from "./core.js";
