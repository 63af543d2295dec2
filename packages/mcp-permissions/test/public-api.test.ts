import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";

describe("public API", () => {
  it("exports exactly these names (a change here needs a changeset)", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "MCPApprovalsSnapshotError",
        "MCPDuplicateToolError",
        "MCPPermissionDeniedError",
        "MCPPermissionPolicy",
        "MCPToolRegistry",
        "annotationsNeedConfirmation",
        "parseToolIdentity",
        "toolIdentity",
      ]
    `);
  });

  it("every exported error has a code and isInstance", () => {
    const denied = new api.MCPPermissionDeniedError({ agent: "a", identity: "s.t", reason: "no" });
    const duplicate = new api.MCPDuplicateToolError("dup", {
      identity: "s.t",
      serverName: "s",
      toolName: "t",
    });
    expect(denied.code).toBe("TOOL_DENIED");
    expect(duplicate.code).toBe("TOOL_DUPLICATE");
    expect(api.MCPPermissionDeniedError.isInstance(denied)).toBe(true);
    expect(api.MCPDuplicateToolError.isInstance(denied)).toBe(false);
    expect(api.MCPDuplicateToolError.isInstance(duplicate)).toBe(true);
    const errorClasses = Object.values(api).filter(
      (v) => typeof v === "function" && v.prototype instanceof Error,
    );
    const snapshot = new api.MCPApprovalsSnapshotError("version", "1");
    expect(snapshot.code).toBe("SNAPSHOT_INVALID");
    expect(api.MCPApprovalsSnapshotError.isInstance(snapshot)).toBe(true);
    expect(duplicate.identity).toBe("s.t");
    expect(errorClasses).toHaveLength(3);
  });
});
