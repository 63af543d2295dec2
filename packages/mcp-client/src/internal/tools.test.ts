import { describe, expect, it } from "vitest";
import { diffTools, hasChanges, toDiscoveredTool } from "./tools.js";

const sdkTool = {
  name: "read_file",
  description: "Read a file",
  inputSchema: { type: "object" as const, properties: { path: { type: "string" } }, required: ["path"] },
  annotations: { title: "Read file", readOnlyHint: true },
};

describe("toDiscoveredTool", () => {
  it("copies the SDK tool into plain data with identity <server>.<tool>", () => {
    const tool = toDiscoveredTool("filesystem", sdkTool);
    expect(tool).toEqual({
      identity: "filesystem.read_file",
      serverName: "filesystem",
      toolName: "read_file",
      title: "Read file",
      description: "Read a file",
      inputSchema: sdkTool.inputSchema,
      annotations: sdkTool.annotations,
    });
    expect(tool.inputSchema).not.toBe(sdkTool.inputSchema);
  });

  it("gives an empty description when the server has none", () => {
    expect(toDiscoveredTool("s", { name: "t", inputSchema: { type: "object" } }).description).toBe("");
  });
});

describe("diffTools", () => {
  const a = toDiscoveredTool("s", { name: "a", inputSchema: { type: "object" } });
  const b = toDiscoveredTool("s", { name: "b", inputSchema: { type: "object" } });
  const b2 = { ...b, description: "changed" };
  const c = toDiscoveredTool("s", { name: "c", inputSchema: { type: "object" } });

  it("reports added, removed and changed tool names", () => {
    expect(diffTools([a, b], [b2, c])).toEqual({ added: ["c"], removed: ["a"], changed: ["b"] });
  });

  it("reports no change for equal lists in another order", () => {
    expect(hasChanges(diffTools([a, b], [b, a]))).toBe(false);
  });
});
