import { describe, expect, it } from "vitest";
import { type DiscoveredTool, requiresTaskExecution } from "../../discover-tools.js";
import { diffTools, hasChanges, readTools, toDiscoveredTool } from "./tool-definitions.js";

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

describe("readTools", () => {
  it("delivers every named entry as data and flags what is wrong", () => {
    const raw = JSON.parse(
      JSON.stringify([
        sdkTool,
        sdkTool,
        { name: "__proto__", inputSchema: { type: "object", properties: { __proto__: { type: "string" } } } },
        { name: "bad name", inputSchema: { type: "object" } },
        { name: "nullschema", inputSchema: null },
        { name: "described", description: 7, inputSchema: { type: "object" } },
        { name: 5 },
        "text",
        null,
      ]),
    );
    const { tools, valid, dropped } = readTools("s", raw);
    expect(dropped).toBe(3);
    expect(tools.map((tool) => tool.toolName)).toEqual([
      "read_file",
      "read_file",
      "__proto__",
      "bad name",
      "nullschema",
      "described",
    ]);
    expect(valid.map((tool) => tool.name)).toEqual(["read_file", "read_file", "__proto__", "bad name"]);
    const codes = tools.map((tool) => (tool.problems ?? []).map((problem) => problem.code).join(","));
    expect(codes).toEqual([
      "DUPLICATE_NAME",
      "DUPLICATE_NAME",
      "",
      "NAME_NOT_MODEL_SAFE",
      "INPUT_SCHEMA_NOT_OBJECT",
      "INVALID_DEFINITION",
    ]);
    expect(tools[4]?.inputSchema).toBeNull();
    expect(tools[5]?.description).toBe("");
    expect(Object.getPrototypeOf(tools[2])).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });
});

describe("readTools: the execution hint", () => {
  const base = { inputSchema: { type: "object" } };
  it("keeps a valid taskSupport and flags anything else as EXECUTION_INVALID (treated as absent)", () => {
    const { tools, valid } = readTools("s", [
      { ...base, name: "required", execution: { taskSupport: "required" } },
      { ...base, name: "optional", execution: { taskSupport: "optional", other: 1 } },
      { ...base, name: "empty", execution: {} },
      { ...base, name: "none" },
      { ...base, name: "bad_value", execution: { taskSupport: "always" } },
      { ...base, name: "bad_type", execution: "required" },
      { ...base, name: "null", execution: null },
    ]);
    const byName = Object.fromEntries(tools.map((tool) => [tool.toolName, tool]));
    expect(byName.required?.execution).toEqual({ taskSupport: "required" });
    expect(byName.optional?.execution).toEqual({ taskSupport: "optional" });
    expect(byName.empty?.execution).toEqual({});
    expect(byName.none && "execution" in byName.none).toBe(false);
    for (const name of ["bad_value", "bad_type", "null"]) {
      expect(byName[name]?.execution).toBeUndefined();
      expect(byName[name]?.problems?.map((p) => p.code)).toEqual(["EXECUTION_INVALID"]);
    }
    // A bad hint does not make the rest of the definition invalid.
    expect(valid.map((tool) => tool.name)).toEqual([
      "required",
      "optional",
      "empty",
      "none",
      "bad_value",
      "bad_type",
      "null",
    ]);
    expect(requiresTaskExecution(byName.required as DiscoveredTool)).toBe(true);
    expect(requiresTaskExecution(byName.optional as DiscoveredTool)).toBe(false);
    expect(requiresTaskExecution(byName.bad_value as DiscoveredTool)).toBe(false);
  });
});
