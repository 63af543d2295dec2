import { MCPConfigError, parseMCPConfig } from "@agentforge/mcp-config";
import { describe, expect, it } from "vitest";
import { parseToolkitConfig, selectServers } from "./toolkit-config.js";

function configError(fn: () => unknown): MCPConfigError {
  try {
    fn();
  } catch (error) {
    if (MCPConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected an MCPConfigError");
}

// A duplicate name's message says where the first one is ("at line 3") only when there are lines.
const pathsAndMessages = (error: MCPConfigError) =>
  error.issues.map(({ path, message }) => ({ path, message: message.replace(/ at line \d+/, "") }));

describe("parseToolkitConfig (a roster written in code)", () => {
  it("applies the file's defaults: the result equals the same roster parsed from YAML", () => {
    const fromCode = parseToolkitConfig({
      servers: [{ name: "local", transport: "stdio", command: "node", enabled: true }],
      permissions: { helper: ["local.*"] },
    });
    const fromYaml = parseMCPConfig(
      "servers:\n  - name: local\n    transport: stdio\n    command: node\n    enabled: true\npermissions:\n  helper: [local.*]\n",
    );
    expect(fromCode.servers).toEqual(fromYaml.servers);
    expect(fromCode.permissions).toEqual({ helper: { allow: ["local.*"], deny: [] } });
    expect(fromCode.servers[0]).toMatchObject({ connectionTimeout: 10, toolTimeout: 30, env: {}, args: [] });
  });

  it.each([
    [
      "a missing command",
      { servers: [{ name: "a", transport: "stdio" }] },
      "servers:\n  - name: a\n    transport: stdio\n",
    ],
    [
      "an unknown key",
      { servers: [{ name: "a", transport: "stdio", command: "x", timeout: 5 }] },
      "servers:\n  - name: a\n    transport: stdio\n    command: x\n    timeout: 5\n",
    ],
    [
      "a pattern that crosses into the server part",
      { servers: [], permissions: { helper: ["*"] } },
      "servers: []\npermissions:\n  helper: ['*']\n",
    ],
    [
      "a duplicate server name",
      {
        servers: [
          { name: "a", transport: "stdio", command: "x" },
          { name: "a", transport: "stdio", command: "y" },
        ],
      },
      "servers:\n  - name: a\n    transport: stdio\n    command: x\n  - name: a\n    transport: stdio\n    command: y\n",
    ],
  ])("rejects %s with the same field paths and messages as the YAML path", (_case, input, yaml) => {
    const fromCode = configError(() => parseToolkitConfig(input as never));
    const fromYaml = configError(() => parseMCPConfig(yaml));
    expect(fromCode.code).toBe("CONFIG_INVALID");
    expect(pathsAndMessages(fromCode)).toEqual(pathsAndMessages(fromYaml));
    expect(fromCode.issues.length).toBeGreaterThan(0);
    // Positions would point into serialized text, not the caller's code.
    expect(fromCode.issues.every((issue) => issue.line === undefined)).toBe(true);
    expect(fromCode.message).toContain("createMCPToolkit config");
  });

  it("passes a parsed config through as it is", () => {
    const parsed = parseMCPConfig("servers:\n  - name: a\n    transport: stdio\n    command: x\n");
    expect(parseToolkitConfig(parsed)).toBe(parsed);
  });

  it("expands ${CONFIG_DIR} to the configDir given", () => {
    const config = parseToolkitConfig(
      { servers: [{ name: "a", transport: "stdio", command: "node", args: ["${CONFIG_DIR}/server.js"] }] },
      { configDir: "/srv/mcp" },
    );
    expect(config.servers[0]).toMatchObject({ configDir: "/srv/mcp" });
  });

  it("refuses what is not a roster object, and points to /node for paths", () => {
    const error = configError(() => parseToolkitConfig("mcp_servers.yaml" as never));
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain("@agentforge/agent-runtime/node");
    const bigint = configError(() =>
      parseToolkitConfig({
        servers: [{ name: "a", transport: "stdio", command: "x", tool_timeout: 1n }],
      } as never),
    );
    expect(bigint.code).toBe("CONFIG_INVALID");
  });
});

describe("selectServers", () => {
  const config = parseToolkitConfig({
    servers: [
      { name: "a", transport: "stdio", command: "x" },
      { name: "b", transport: "stdio", command: "y" },
    ],
  });

  it("keeps every server by default, or only those named", () => {
    expect(selectServers(config, undefined).map((s) => s.name)).toEqual(["a", "b"]);
    expect(selectServers(config, ["b"]).map((s) => s.name)).toEqual(["b"]);
  });

  it("refuses a name the config does not define, listing those it does", () => {
    const error = configError(() => selectServers(config, ["c"]));
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain('"c"');
    expect(error.message).toContain("a, b");
  });
});
