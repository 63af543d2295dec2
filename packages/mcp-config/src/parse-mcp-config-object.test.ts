import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { MCPConfigError } from "./errors.js";
import { parseMCPConfig, parseMCPConfigObject } from "./parse-mcp-config.js";

const fixturesDir = new URL("./__fixtures__/", import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, fixturesDir), "utf8");

function errorOf(fn: () => unknown): MCPConfigError {
  try {
    fn();
  } catch (error) {
    expect(MCPConfigError.isInstance(error)).toBe(true);
    return error as MCPConfigError;
  }
  throw new Error("parsed without error");
}

// An object carries no lines: the only difference allowed is the position (line, column, and the
// "at line N" of a duplicate name's first use).
const withoutPositions = (error: MCPConfigError) => ({
  code: error.code,
  source: error.source,
  issues: error.issues.map(({ path, message }) => ({
    path,
    message: message.replace(/ at line \d+\)/, ")"),
  })),
});

// Fixtures that parse as YAML but break a rule (syntax errors and empty files have no object form).
const invalid = readdirSync(fixturesDir).filter((name) => {
  try {
    parseMCPConfig(fixture(name));
    return false;
  } catch (error) {
    return MCPConfigError.isInstance(error) && error.code === "CONFIG_INVALID";
  }
});

describe("parseMCPConfigObject", () => {
  it("covers every invalid fixture", () => {
    expect(invalid.length).toBeGreaterThanOrEqual(12);
    expect(invalid).toContain("bad-resource-grants.yaml");
    expect(invalid).toContain("duplicate-names.yaml");
  });

  it.each(invalid)("%s: the same errors (code, paths, messages) as the file", (name) => {
    const fromText = errorOf(() => parseMCPConfig(fixture(name), { source: "roster" }));
    const fromObject = errorOf(() => parseMCPConfigObject(parse(fixture(name)), { source: "roster" }));
    expect(withoutPositions(fromObject)).toEqual(withoutPositions(fromText));
    expect(fromObject.message.split("\n")[0]).toBe(fromText.message.split("\n")[0]);
    expect(fromObject.issues.every((issue) => issue.line === undefined && issue.column === undefined)).toBe(
      true,
    );
  });

  it.each([
    "valid-roster.yaml",
    "native.json",
    "claude-desktop.json",
    "vscode-mcp.json",
    "resource-and-prompt-grants.yaml",
  ])("%s: the same config as the file", (name) => {
    const options = { source: "roster", configDir: "/srv/app" };
    const fromText = parseMCPConfig(fixture(name), options);
    expect(parseMCPConfigObject(parse(fixture(name)), options)).toEqual({
      ...fromText,
      warnings: fromText.warnings.map(({ path, message }) => ({ path, message })),
    });
  });

  it("applies defaults, never modifies the input, and ignores keys whose value is undefined", () => {
    const input = {
      servers: [{ name: "fs", transport: "stdio", command: "node", description: undefined }],
      permissions: { documentation: ["fs.*"] },
    } as const;
    const before = JSON.stringify(input);
    const config = parseMCPConfigObject(input);
    expect(JSON.stringify(input)).toBe(before);
    expect(config.servers[0]).toEqual({
      name: "fs",
      transport: "stdio",
      command: "node",
      args: [],
      env: {},
      enabled: false,
      connectionTimeout: 10,
      toolTimeout: 30,
      resetTimeoutOnProgress: false,
    });
    expect(config.permissions).toEqual({ documentation: { allow: ["fs.*"], deny: [] } });
    expect(config.format).toBe("agentforge");
  });

  it("refuses what is not plain data, naming the field", () => {
    const cyclic: Record<string, unknown> = { name: "a", transport: "stdio", command: "node" };
    cyclic.self = cyclic;
    expect(errorOf(() => parseMCPConfigObject({ servers: [cyclic] })).issues).toEqual([
      { path: "servers[0].self", message: "holds a cycle (a value that contains itself); write plain data" },
    ]);
    const error = errorOf(() =>
      parseMCPConfigObject({
        servers: [{ name: "a", transport: "stdio", command: "node", tool_timeout: 10n, args: [() => 1] }],
        permissions: { a: { allow: new Set(["x.*"]) } },
      }),
    );
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.issues.map((i) => i.path)).toEqual([
      "servers[0].tool_timeout",
      "servers[0].args[0]",
      "permissions.a.allow",
    ]);
    expect(error.issues[2]?.message).toMatch(/got a Set/);
  });

  it("keeps a __proto__ key an own key, reported as unknown (no prototype change)", () => {
    const input = JSON.parse(
      '{"servers":[{"name":"a","transport":"stdio","command":"node","__proto__":{"enabled":true}}]}',
    );
    const error = errorOf(() => parseMCPConfigObject(input));
    expect(error.issues.map((i) => i.path)).toEqual(["servers[0].__proto__"]);
    expect(error.issues[0]?.message).toMatch(/unknown key "__proto__"/);
  });

  it("a shared (non-cyclic) value is fine; deep nesting is refused", () => {
    const args = ["x"];
    const config = parseMCPConfigObject({
      servers: [
        { name: "a", transport: "stdio", command: "node", args },
        { name: "b", transport: "stdio", command: "node", args },
      ],
    });
    expect(config.servers.map((s) => s.transport === "stdio" && s.args)).toEqual([["x"], ["x"]]);
    let deep: unknown = "x";
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(errorOf(() => parseMCPConfigObject({ servers: deep })).issues[0]?.message).toMatch(
      /nested deeper/,
    );
  });

  it("refuses a non-object input like an empty document", () => {
    for (const input of [undefined, null, 3, "servers: []", []]) {
      expect(errorOf(() => parseMCPConfigObject(input)).message).toMatch(
        /mapping with a top-level `servers:` list/,
      );
    }
  });
});
