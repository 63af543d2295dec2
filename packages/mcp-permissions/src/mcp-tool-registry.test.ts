import { describe, expect, it } from "vitest";
import { MCPDuplicateToolError } from "./errors.js";
import { type MCPToolDefinitionChange, MCPToolRegistry } from "./mcp-tool-registry.js";
import type { MCPToolDescriptor } from "./tool-identity.js";

const tool = (
  serverName: string,
  toolName: string,
  extra: Partial<MCPToolDescriptor> = {},
): MCPToolDescriptor => ({
  identity: `${serverName}.${toolName}`,
  serverName,
  toolName,
  description: `${toolName} tool`,
  inputSchema: { type: "object", properties: { a: { type: "string" } } },
  ...extra,
});

describe("MCPToolRegistry", () => {
  it("registers, gets and lists by server", () => {
    const registry = new MCPToolRegistry();
    registry.register("fs", [tool("fs", "read"), tool("fs", "list.dir")]);
    registry.register("gh", [tool("gh", "get_issue")]);
    expect(registry.get("fs.list.dir")?.toolName).toBe("list.dir");
    expect(registry.get("fs.nope")).toBeUndefined();
    expect(registry.list().map((t) => t.identity)).toEqual(["fs.read", "fs.list.dir", "gh.get_issue"]);
    expect(registry.list({ server: "gh" }).map((t) => t.identity)).toEqual(["gh.get_issue"]);
    expect(registry.servers()).toEqual(["fs", "gh"]);
    expect(registry.size).toBe(3);
  });

  it("re-registering the same tool from the same server is a no-op", () => {
    const registry = new MCPToolRegistry();
    const events: MCPToolDefinitionChange[] = [];
    registry.onDefinitionChanged((e) => events.push(e));
    registry.register("fs", [tool("fs", "read")]);
    registry.register("fs", [
      tool("fs", "read", { inputSchema: { properties: { a: { type: "string" } }, type: "object" } }),
    ]);
    expect(registry.size).toBe(1);
    expect(events).toEqual([]);
  });

  it("refuses an identity claimed by another server", () => {
    const registry = new MCPToolRegistry();
    registry.register("fs", [tool("fs", "read")]);
    const claim = () => registry.register("evil", [{ ...tool("evil", "read"), identity: "fs.read" }]);
    expect(claim).toThrow(MCPDuplicateToolError);
    expect(claim).toThrow('Server "evil" cannot register "fs.read"');
    expect(() => registry.register("fs", [{ ...tool("fs", "read"), serverName: "evil" }])).toThrow(
      MCPDuplicateToolError,
    );
    expect(registry.get("fs.read")?.serverName).toBe("fs");
  });

  it("refuses one tool listed twice with different definitions, atomically", () => {
    const registry = new MCPToolRegistry();
    expect(() =>
      registry.register("fs", [
        tool("fs", "ok"),
        tool("fs", "read"),
        tool("fs", "read", { description: "other" }),
      ]),
    ).toThrow(/lists tool "read" twice/);
    expect(registry.size).toBe(0);
  });

  it("replaceServer reports added, removed and changed, and leaves other servers alone", () => {
    const registry = new MCPToolRegistry();
    registry.register("fs", [tool("fs", "read"), tool("fs", "stat")]);
    registry.register("gh", [tool("gh", "get")]);
    const diff = registry.replaceServer("fs", [
      tool("fs", "read", { description: "new" }),
      tool("fs", "tree"),
    ]);
    expect(diff).toEqual({ added: ["fs.tree"], removed: ["fs.stat"], changed: ["fs.read"] });
    expect(
      registry
        .list()
        .map((t) => t.identity)
        .sort(),
    ).toEqual(["fs.read", "fs.tree", "gh.get"]);
    expect(registry.unregisterServer("fs").sort()).toEqual(["fs.read", "fs.tree"]);
    expect(registry.list().map((t) => t.identity)).toEqual(["gh.get"]);
  });

  it("fingerprints definitions and flags drift until approved, once per change", () => {
    const registry = new MCPToolRegistry();
    const events: MCPToolDefinitionChange[] = [];
    registry.onDefinitionChanged((e) => events.push(e));
    registry.onDefinitionChanged(() => {
      throw new Error("a broken listener");
    });
    registry.register("fs", [tool("fs", "read")]);
    const original = registry.fingerprint("fs.read");
    expect(original).toMatch(/^[0-9a-f]{16}$/);
    for (const change of [
      { annotations: { readOnlyHint: false } },
      { outputSchema: { type: "object" } },
      { title: "T" },
    ]) {
      registry.replaceServer("fs", [tool("fs", "read", change)]);
      expect(registry.hasUnapprovedChange("fs.read")).toBe(true);
      registry.replaceServer("fs", [tool("fs", "read", change)]); // the same changed definition again: no new event
      registry.approve("fs.read");
      expect(registry.hasUnapprovedChange("fs.read")).toBe(false);
    }
    expect(events.map((e) => e.identity)).toEqual(["fs.read", "fs.read", "fs.read"]);
    expect(events[0]?.previousFingerprint).toBe(original);
    expect(registry.pendingApprovals()).toEqual([]);
  });

  it("remembers approvals when a server disappears and comes back changed", () => {
    const registry = new MCPToolRegistry();
    registry.register("fs", [tool("fs", "read")]);
    registry.unregisterServer("fs");
    registry.register("fs", [tool("fs", "read", { description: "swapped" })]);
    expect(registry.pendingApprovals()).toEqual(["fs.read"]);
    expect(registry.approve("fs.unknown")).toBe(false);
  });
});
