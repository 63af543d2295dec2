import { describe, expect, it } from "vitest";
import * as core from "../src/core.js";
import * as api from "../src/index.js";
import * as node from "../src/node.js";

describe("public API", () => {
  it("exports exactly these names (a change here needs a changeset)", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "AGENT_NAME_PATTERN",
        "ENV_VAR_NAME_PATTERN",
        "MAX_RESOURCE_URI_LENGTH",
        "MCPConfigError",
        "MCPError",
        "MCPEventEmitter",
        "MCP_CONFIG_SCHEMA_ID",
        "MIN_SECRET_LENGTH",
        "OAUTH_SIGNING_ALGORITHMS",
        "PROTOCOL_VERSION_SETTINGS",
        "REDACTED_MARKER",
        "SERVER_NAME_PATTERN",
        "SecretRedactor",
        "TOOL_SEARCH_MODES",
        "authConfigSchema",
        "canonicalResourceUri",
        "cleanText",
        "configFileSchema",
        "configVariables",
        "createSecretRedactor",
        "emitProcessWarning",
        "escapeJsonText",
        "findGrantServerProblems",
        "grantServerIssues",
        "mcpConfigJsonSchema",
        "parseMCPConfig",
        "parseMCPConfigObject",
        "parseMCPServerConfigs",
        "permissionPatternProblem",
        "permissionsSchema",
        "promptPatternProblem",
        "redactedConfig",
        "reportListenerError",
        "resolvePlaceholders",
        "resolvedAuthHeaders",
        "resolvedEnv",
        "resourcePatternProblem",
        "resourceUriProblem",
        "secretForms",
        "serverEntrySchema",
        "stringifyMCPConfig",
        "suggestName",
        "toolSearchConfigSchema",
      ]
    `);
    expect(Object.keys(node).sort()).toMatchInlineSnapshot(`
      [
        "loadMCPConfig",
        "loadMCPServerConfigs",
      ]
    `);
  });

  it("/core is the root entry minus what needs zod, with the same values", () => {
    expect(Object.keys(core).sort()).toMatchInlineSnapshot(`
      [
        "AGENT_NAME_PATTERN",
        "ENV_VAR_NAME_PATTERN",
        "MAX_RESOURCE_URI_LENGTH",
        "MCPConfigError",
        "MCPError",
        "MCPEventEmitter",
        "MIN_SECRET_LENGTH",
        "REDACTED_MARKER",
        "SERVER_NAME_PATTERN",
        "SecretRedactor",
        "canonicalResourceUri",
        "cleanText",
        "configVariables",
        "createSecretRedactor",
        "emitProcessWarning",
        "escapeJsonText",
        "findGrantServerProblems",
        "grantServerIssues",
        "permissionPatternProblem",
        "promptPatternProblem",
        "redactedConfig",
        "reportListenerError",
        "resolvePlaceholders",
        "resolvedAuthHeaders",
        "resolvedEnv",
        "resourcePatternProblem",
        "resourceUriProblem",
        "secretForms",
        "suggestName",
      ]
    `);
    const root = api as Record<string, unknown>;
    for (const [name, value] of Object.entries(core)) expect(root[name], name).toBe(value);
  });

  it("every exported error has a code and isInstance", () => {
    const errors = Object.values(api).filter(
      (value): value is typeof api.MCPError =>
        typeof value === "function" && value.prototype instanceof Error,
    );
    expect(errors.map((e) => e.name).sort()).toEqual(["MCPConfigError", "MCPError"]);
    for (const ErrorClass of errors) {
      const error = new ErrorClass("x", { code: "CONFIG_INVALID" });
      expect(error.code).toBe("CONFIG_INVALID");
      expect(ErrorClass.isInstance(error)).toBe(true);
    }
  });
});
