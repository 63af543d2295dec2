import { describe, expect, it } from "vitest";
import { MCPToolExecutionError, MCPToolNotFoundError } from "./errors.js";
import { MAX_MCP_RESULT_CHARS } from "./limits.js";
import { MCPToolNameMap } from "./mcp-tool-name-map.js";
import { toolErrorText } from "./tool-error-text.js";

const ESC = "\u001b";
const HOSTILE = `${ESC}[2J${ESC}]52;c;cHduZWQ=\u0007\u009b31mhi\u202eexe\u2028\ud83d`;

function toolError(text: string) {
  return new MCPToolExecutionError('Tool "s.t" returned an error result', {
    code: "TOOL_ERROR",
    identity: "s.t",
    serverName: "s",
    toolName: "t",
    toolErrorText: text,
  });
}

describe("toolErrorText", () => {
  it("cleans a server's text in the message and in a tool's error text", () => {
    expect(toolErrorText(toolError(HOSTILE))).toBe("Error (TOOL_ERROR): hiexe\n\ufffd");
    const failed = new MCPToolExecutionError(`Call to "s.t" failed: ${HOSTILE}`, {
      code: "TOOL_FAILED",
      identity: "s.t",
      serverName: "s",
      toolName: "t",
    });
    const nameMap = new MCPToolNameMap();
    nameMap.add("s.t");
    expect(toolErrorText(failed, { nameMap })).toBe(
      'Error (TOOL_FAILED): Call to "s__t" failed: hiexe\n\ufffd',
    );
  });

  it("stays within the bound, marker included, and counts a cut made earlier", () => {
    // What the executor hands over for a long error result: 8000 characters and the marker.
    const rendered = `${"y".repeat(MAX_MCP_RESULT_CHARS)}... [12000 characters truncated]`;
    const text = toolErrorText(toolError(rendered));
    expect(text.length).toBe(MAX_MCP_RESULT_CHARS);
    const kept =
      text.length -
      "Error (TOOL_ERROR): ".length -
      /\.\.\. \[\d+ characters truncated\]$/.exec(text)![0].length;
    expect(text).toMatch(
      new RegExp(`\\.\\.\\. \\[${12000 + MAX_MCP_RESULT_CHARS - kept} characters truncated\\]$`),
    );
    const long = new MCPToolNotFoundError("x", [], { reason: "z".repeat(20_000) });
    expect(toolErrorText(long).length).toBe(MAX_MCP_RESULT_CHARS);
    expect(toolErrorText(long, { maxChars: 100 })).toHaveLength(100);
    expect(toolErrorText(toolError("short"))).toBe("Error (TOOL_ERROR): short");
  });

  it("never splits a surrogate pair at the cut", () => {
    const text = toolErrorText(toolError("😀".repeat(10_000)), { maxChars: 101 });
    expect(text.length).toBeLessThanOrEqual(101);
    expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
