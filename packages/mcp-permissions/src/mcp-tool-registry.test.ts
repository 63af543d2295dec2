import { describe, expect, it } from "vitest";
import { MCPApprovalsSnapshotError, MCPDuplicateToolError } from "./errors.js";
import {
  type MCPServerRejection,
  type MCPToolDefinitionChange,
  MCPToolRegistry,
} from "./mcp-tool-registry.js";
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
    expect(registry.list({ serverName: "gh" }).map((t) => t.identity)).toEqual(["gh.get_issue"]);
    expect(registry.servers()).toEqual(["fs", "gh"]);
    expect(registry.size).toBe(3);
  });

  it("re-registering the same tool from the same server is a no-op", () => {
    const registry = new MCPToolRegistry();
    const events: MCPToolDefinitionChange[] = [];
    registry.on("definitionChanged", (e) => events.push(e));
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

  it("register refuses one tool listed twice, atomically", () => {
    const registry = new MCPToolRegistry();
    for (const twin of [tool("fs", "read", { description: "other" }), tool("fs", "read")]) {
      expect(() => registry.register("fs", [tool("fs", "ok"), tool("fs", "read"), twin])).toThrow(
        /lists tool "read" more than once/,
      );
    }
    expect(registry.size).toBe(0);
  });

  it("replaceServer never throws: a duplicate list rejects that server as a whole, the others work on", () => {
    const registry = new MCPToolRegistry();
    const rejected: MCPServerRejection[] = [];
    const accepted: string[] = [];
    registry.on("serverRejected", (r) => rejected.push(r));
    registry.on("serverAccepted", (a) => accepted.push(a.serverName));
    registry.on("serverRejected", () => {
      throw new Error("a broken listener");
    });
    registry.replaceServer("fs", [tool("fs", "read"), tool("fs", "stat")]);
    registry.replaceServer("gh", [tool("gh", "get")]);

    const diff = registry.replaceServer("fs", [tool("fs", "read"), tool("fs", "tree"), tool("fs", "read")]);
    expect(diff.removed.sort()).toEqual(["fs.read", "fs.stat"]);
    expect(diff.added).toEqual([]);
    expect(MCPDuplicateToolError.isInstance(diff.rejected)).toBe(true);
    expect(diff.rejected).toMatchObject({
      code: "TOOL_DUPLICATE",
      serverName: "fs",
      toolName: "read",
      identity: "fs.read",
    });
    // Nothing of fs stays callable, not even the previous good list; gh is untouched.
    expect(registry.list().map((t) => t.identity)).toEqual(["gh.get"]);
    expect(registry.rejection("fs")?.error.identity).toBe("fs.read");
    expect(registry.rejectedServers().map((r) => r.serverName)).toEqual(["fs"]);
    expect(rejected).toHaveLength(1);

    // The same bad list again: still rejected, no second event.
    registry.replaceServer("fs", [tool("fs", "read"), tool("fs", "read")]);
    expect(rejected).toHaveLength(1);

    // A descriptor naming another server is rejected the same way (a new reason: a new event).
    registry.replaceServer("fs", [{ ...tool("gh", "get"), identity: "gh.get" }]);
    expect(rejected).toHaveLength(2);
    expect(rejected[1]?.error).toMatchObject({ identity: "gh.get", ownerServerName: "gh" });
    expect(registry.get("gh.get")?.serverName).toBe("gh");

    // A good list clears the rejection.
    const back = registry.replaceServer("fs", [tool("fs", "read")]);
    expect(back.rejected).toBeUndefined();
    expect(back.added).toEqual(["fs.read"]);
    expect(registry.rejection("fs")).toBeUndefined();
    expect(accepted).toEqual(["fs"]);
    expect(registry.has("fs.read")).toBe(true);
  });

  it("unregisterServer forgets a rejection; unknown events are refused", () => {
    const registry = new MCPToolRegistry();
    registry.replaceServer("fs", [tool("fs", "a"), tool("fs", "a")]);
    expect(registry.rejectedServers()).toHaveLength(1);
    expect(registry.unregisterServer("fs")).toEqual([]);
    expect(registry.rejectedServers()).toEqual([]);
    expect(() => registry.on("__proto__" as "serverAccepted", () => undefined)).toThrow(TypeError);
  });

  it("hostile tool names are plain keys (no prototype pollution)", () => {
    const registry = new MCPToolRegistry();
    const names = [
      "__proto__",
      "constructor",
      "toString",
      "hasOwnProperty",
      "not model safe/name with spaces",
      "x".repeat(200),
    ];
    registry.replaceServer(
      "evil",
      names.map((n) => tool("evil", n)),
    );
    expect(registry.list().map((t) => t.toolName)).toEqual(names);
    expect(registry.get("evil.__proto__")?.toolName).toBe("__proto__");
    expect(registry.get("__proto__")).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const restored = MCPToolRegistry.fromSnapshot(registry.exportApprovals());
    expect(restored.exportApprovals().approvals.map((a) => a.identity)).toEqual(
      names.map((n) => `evil.${n}`),
    );
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
    registry.on("definitionChanged", (e) => events.push(e));
    registry.on("definitionChanged", () => {
      throw new Error("a broken listener");
    });
    const failures: string[] = [];
    registry.on("listenerError", ({ event, error }) =>
      failures.push(`${event}: ${(error as Error).message}`),
    );
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
    // The broken listener broke nothing, and each of its failures was reported.
    expect(failures).toEqual(Array(3).fill("definitionChanged: a broken listener"));
    expect(events[0]?.previousFingerprint).toBe(original);
    expect(registry.pendingApprovals()).toEqual([]);
  });

  it("approvals survive a restart as plain JSON: a definition changed meanwhile is flagged", () => {
    const before = new MCPToolRegistry();
    before.register("fs", [tool("fs", "read"), tool("fs", "stat")]);
    const saved = JSON.parse(JSON.stringify(before.exportApprovals()));
    expect(saved.version).toBe(1);
    expect(saved.approvals.map((a: { identity: string }) => a.identity)).toEqual(["fs.read", "fs.stat"]);
    expect(saved.approvals[0].fingerprint).toBe(before.fingerprint("fs.read"));

    // A new process: restore, then discover. fs.read changed while the run was paused.
    const after = MCPToolRegistry.fromSnapshot(saved);
    const events: MCPToolDefinitionChange[] = [];
    after.on("definitionChanged", (e) => events.push(e));
    after.replaceServer("fs", [tool("fs", "read", { description: "swapped" }), tool("fs", "stat")]);
    expect(after.pendingApprovals()).toEqual(["fs.read"]);
    expect(events.map((e) => [e.identity, e.previousFingerprint])).toEqual([
      ["fs.read", before.fingerprint("fs.read")],
    ]);

    // Restoring into a registry that already holds the tools reports the difference too.
    const live = new MCPToolRegistry();
    live.register("fs", [tool("fs", "read", { description: "swapped" })]);
    const liveEvents: string[] = [];
    live.on("definitionChanged", (e) => liveEvents.push(e.identity));
    expect(live.pendingApprovals()).toEqual([]);
    expect(live.restoreApprovals(saved)).toBe(2);
    expect(live.pendingApprovals()).toEqual(["fs.read"]);
    expect(liveEvents).toEqual(["fs.read"]);
    live.approve("fs.read");
    expect(live.exportApprovals().approvals.find((a) => a.identity === "fs.read")?.fingerprint).toBe(
      live.fingerprint("fs.read"),
    );
  });

  it("restoreApprovals refuses anything that is not a snapshot, changing nothing", () => {
    const registry = new MCPToolRegistry();
    registry.register("fs", [tool("fs", "read")]);
    const good = registry.exportApprovals();
    const cases: [unknown, string][] = [
      [null, "(root)"],
      [[], "(root)"],
      [{ version: 2, approvals: [] }, "version"],
      [{ version: 1 }, "approvals"],
      [{ version: 1, approvals: [5] }, "approvals[0]"],
      [{ version: 1, approvals: [{ identity: "no-dot", definition: "x" }] }, "approvals[0].identity"],
      [{ version: 1, approvals: [{ identity: "fs.read", definition: 1 }] }, "approvals[0].definition"],
      [
        { version: 1, approvals: [{ ...good.approvals[0], fingerprint: "0000000000000000" }] },
        "approvals[0].fingerprint",
      ],
      [
        { version: 1, approvals: [{ identity: "fs.read", definition: "x" }, { identity: "fs.b" }] },
        "approvals[1].definition",
      ],
    ];
    for (const [input, path] of cases) {
      let error: unknown;
      try {
        registry.restoreApprovals(input);
      } catch (e) {
        error = e;
      }
      expect(MCPApprovalsSnapshotError.isInstance(error), path).toBe(true);
      expect(error).toMatchObject({ code: "SNAPSHOT_INVALID", path });
    }
    expect(registry.pendingApprovals()).toEqual([]);
    expect(registry.exportApprovals()).toEqual(good);
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
