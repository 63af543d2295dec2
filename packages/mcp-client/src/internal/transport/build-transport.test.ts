import type { MCPStdioServerConfig } from "@agentforge/mcp-config";
import { DEFAULT_INHERITED_ENV_VARS, getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { childEnvironment, DEFAULT_INHERITED_ENV } from "./build-transport.js";

const config = {
  name: "child",
  enabled: true,
  transport: "stdio",
  command: "node",
  args: [],
  env: { OWN: "OWN_SOURCE" },
  connectionTimeout: 10,
  toolTimeout: 30,
} as unknown as MCPStdioServerConfig;

describe("childEnvironment (the environment of a stdio child)", () => {
  it("is the SDK's getDefaultEnvironment() plus inheritEnv and the server's env, for process.env", () => {
    const env = childEnvironment(config, process.env, []);
    const { OWN, ...inherited } = env;
    expect(inherited).toEqual(getDefaultEnvironment());
    expect(OWN).toBe(process.env.OWN_SOURCE);
    expect(DEFAULT_INHERITED_ENV).toEqual(DEFAULT_INHERITED_ENV_VARS);
  });

  it("takes the same names from another env source, skips shell functions, adds inheritEnv and env", () => {
    const source: Record<string, string> = {
      HOME: "/home/ada",
      PATH: "/bin",
      SHELL: "() { evil; }",
      EXTRA: "yes",
      NOT_LISTED: "secret",
      OWN_SOURCE: "own",
    };
    const env = childEnvironment(config, source, ["EXTRA"]);
    const expected: Record<string, string> = { EXTRA: "yes", OWN: "own" };
    for (const name of DEFAULT_INHERITED_ENV_VARS) {
      const value = source[name];
      if (value !== undefined && !value.startsWith("()")) expected[name] = value;
    }
    expect(env).toEqual(expected);
    expect(env).not.toHaveProperty("SHELL");
    expect(env).not.toHaveProperty("NOT_LISTED");
  });
});
