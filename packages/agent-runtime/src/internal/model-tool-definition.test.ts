import { describe, expect, it } from "vitest";
import { MAX_TOOL_DESCRIPTION, modelToolDescription } from "./model-tool-definition.js";

const tool = (fields: { description?: string; title?: string }) => ({
  identity: "s.t",
  serverName: "s",
  toolName: "t",
  inputSchema: { type: "object" },
  ...fields,
});

describe("modelToolDescription", () => {
  it("cleans the description (else the title) a model gets", () => {
    expect(modelToolDescription(tool({ description: "Reads\u001b[2J a \u202efile\u2028now" }))).toBe(
      "Reads a file\nnow",
    );
    expect(modelToolDescription(tool({ title: "Title\u009b31m\ud800" }))).toBe("Title\ufffd");
  });

  it("falls back to the identity when nothing readable is left, and bounds the length", () => {
    expect(modelToolDescription(tool({ description: "\u001b[2J\u202e" }))).toBe("MCP tool s.t");
    expect(modelToolDescription(tool({}))).toBe("MCP tool s.t");
    expect(modelToolDescription(tool({ description: "x".repeat(10_000) }))).toHaveLength(
      MAX_TOOL_DESCRIPTION,
    );
  });
});
