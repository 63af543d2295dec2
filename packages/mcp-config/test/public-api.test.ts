import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";
import * as node from "../src/node.js";

describe("public API", () => {
  it("exports exactly these names (a change here needs a changeset)", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "AGENT_NAME_PATTERN",
        "ENV_VAR_NAME_PATTERN",
        "MCPConfigError",
        "MCPError",
        "MCP_CONFIG_SCHEMA_ID",
        "MIN_SECRET_LENGTH",
        "OAUTH_SIGNING_ALGORITHMS",
        "REDACTED_MARKER",
        "SERVER_NAME_PATTERN",
        "SecretRedactor",
        "authConfigSchema",
        "configFileSchema",
        "configVariables",
        "createSecretRedactor",
        "mcpConfigJsonSchema",
        "parseMCPConfig",
        "parseMCPServerConfigs",
        "permissionPatternProblem",
        "permissionsSchema",
        "redactedConfig",
        "resolvePlaceholders",
        "resolvedAuthHeaders",
        "resolvedEnv",
        "secretForms",
        "serverEntrySchema",
        "stringifyMCPConfig",
      ]
    `);
    expect(Object.keys(node).sort()).toMatchInlineSnapshot(`
      [
        "loadMCPConfig",
        "loadMCPServerConfigs",
      ]
    `);
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
