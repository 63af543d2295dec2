import { describe, expectTypeOf, it } from "vitest";
import { createMCPToolkit } from "./create-mcp-toolkit.js";
import type { MCPToolkit, MCPToolkitConfig } from "./mcp-toolkit.js";
import { createMCPToolkit as createNodeToolkit, type MCPToolkitConfigSource } from "./node/index.js";

describe("createMCPToolkit types", () => {
  it("the root entry takes a roster or a parsed config, never a path", () => {
    expectTypeOf(createMCPToolkit).parameter(0).toHaveProperty("config").toEqualTypeOf<MCPToolkitConfig>();
    // @ts-expect-error a file path needs @agentforge/agent-runtime/node
    void createMCPToolkit({ config: "mcp_servers.yaml" });
    void createMCPToolkit({
      // @ts-expect-error roster entries are in the file's shape (snake_case), checked like the file
      config: { servers: [{ name: "a", transport: "stdio", command: "x", toolTimeout: 5 }] },
    });
  });

  it("the /node entry also takes a path, for create and reload", () => {
    expectTypeOf(createNodeToolkit).returns.resolves.toEqualTypeOf<MCPToolkit<MCPToolkitConfigSource>>();
    expectTypeOf<MCPToolkit<MCPToolkitConfigSource>["reload"]>()
      .parameter(0)
      .toEqualTypeOf<MCPToolkitConfigSource>();
  });
});
