import * as client from "@agentforge/mcp-client";
import * as config from "@agentforge/mcp-config";
import * as permissions from "@agentforge/mcp-permissions";
import { describe, expect, it } from "vitest";
import * as aiSdk from "../src/ai-sdk/index.js";
import * as api from "../src/index.js";
import * as langchain from "../src/langchain/index.js";
import * as node from "../src/node/index.js";
import * as otel from "../src/otel/index.js";
import * as testing from "../src/testing/index.js";

describe("public API", () => {
  it("exports exactly these names (a change here needs a changeset)", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "MAX_MCP_CONFIRMATIONS_PER_RUN",
        "MAX_MCP_CONFIRMATION_PREVIEW_CHARS",
        "MAX_MCP_MEDIA_BYTES",
        "MAX_MCP_RESULT_CHARS",
        "MAX_MCP_TOOL_ROUNDS",
        "MAX_MCP_TOOL_SEARCH_QUERY_CHARS",
        "MAX_MCP_TOOL_SEARCH_RESULTS",
        "MAX_MODEL_TOOLS",
        "MCPApprovalsSnapshotError",
        "MCPCapabilityError",
        "MCPConfigError",
        "MCPConfirmationError",
        "MCPConnectionError",
        "MCPDuplicateToolError",
        "MCPError",
        "MCPEventDispatcher",
        "MCPInvalidArgumentsError",
        "MCPPermissionDeniedError",
        "MCPRequestError",
        "MCPServerNotFoundError",
        "MCPTimeoutError",
        "MCPToolExecutionError",
        "MCPToolExecutor",
        "MCPToolNameMap",
        "MCPToolNotFoundError",
        "MCPToolSearchError",
        "MCPToolkitClosedError",
        "MCP_CONFIRMATION_TIMEOUT_MS",
        "MCP_INTERNAL_ERROR",
        "MCP_MODEL_IMAGE_TYPES",
        "MCP_PROGRESS_INTERVAL_MS",
        "MCP_PROMPT_GET",
        "MCP_RESOURCE_READ",
        "MCP_SERVER_TOOLS_ACCEPTED",
        "MCP_SERVER_TOOLS_REJECTED",
        "MCP_TOOLS_LEFT_OUT",
        "MCP_TOOL_CALL_COMPLETED",
        "MCP_TOOL_CALL_CONFIRMATION_REQUESTED",
        "MCP_TOOL_CALL_CONFIRMATION_RESOLVED",
        "MCP_TOOL_CALL_FAILED",
        "MCP_TOOL_CALL_INPUT_ROUND",
        "MCP_TOOL_CALL_PROGRESS",
        "MCP_TOOL_CALL_STARTED",
        "MCP_TOOL_DEFINITION_CHANGED",
        "MCP_TOOL_SEARCH",
        "MCP_TOOL_SEARCH_DEFAULTS",
        "MCP_TOOL_SEARCH_RESULTS",
        "MCP_WARNING",
        "MODEL_TOOL_NAME_PATTERN",
        "argumentsPreview",
        "canonicalJson",
        "checkToolArguments",
        "cleanModelText",
        "confirmationAnswer",
        "confirmationBinding",
        "createConfirmationRun",
        "createLexicalToolRanker",
        "createMCPToolkit",
        "isForAssistant",
        "modelToolName",
        "noopTracer",
        "normalizeToolInputSchema",
        "registerDiscovered",
        "renderToolResult",
        "selectToolResultMedia",
        "syncRegistry",
        "toolErrorText",
        "toolSearchText",
      ]
    `);
    expect(Object.keys(langchain).sort()).toMatchInlineSnapshot(`
      [
        "invokeWithTools",
        "toLangChainTools",
      ]
    `);
    expect(Object.keys(aiSdk).sort()).toMatchInlineSnapshot(`
      [
        "confirmationRunOf",
        "memoryApprovalBindingStore",
        "reportInvalidToolCalls",
        "stopAfterToolRounds",
        "toAISDKTools",
        "toolSearchStateOf",
      ]
    `);
    expect(Object.keys(node).sort()).toMatchInlineSnapshot(`
      [
        "createMCPToolkit",
      ]
    `);
    expect(Object.keys(otel).sort()).toMatchInlineSnapshot(`
      [
        "createOpenTelemetryTracer",
      ]
    `);
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "ScriptedChatModel",
      ]
    `);
  });

  it("every exported error has a code and isInstance", () => {
    const notFound = new api.MCPToolNotFoundError("s.t", ["s.u"]);
    const failed = new api.MCPToolExecutionError("x", {
      code: "TOOL_FAILED",
      identity: "s.t",
      serverName: "s",
      toolName: "t",
    });
    expect(notFound.code).toBe("TOOL_NOT_FOUND");
    expect(failed.code).toBe("TOOL_FAILED");
    expect(api.MCPToolNotFoundError.isInstance(notFound)).toBe(true);
    expect(api.MCPToolExecutionError.isInstance(notFound)).toBe(false);
    expect(api.MCPToolExecutionError.isInstance(failed)).toBe(true);
    const invalid = new api.MCPInvalidArgumentsError("s.t", [
      { path: "a", message: "must be string (got number)" },
    ]);
    expect(invalid.code).toBe("INVALID_ARGUMENTS");
    expect(invalid.issues).toEqual([{ path: "a", message: "must be string (got number)" }]);
    expect(api.MCPInvalidArgumentsError.isInstance(invalid)).toBe(true);
    expect(api.MCPToolNotFoundError.isInstance(invalid)).toBe(false);
    const classes = Object.values(api).filter((v) => typeof v === "function" && v.prototype instanceof Error);
    const closed = new api.MCPToolkitClosedError("tools");
    expect(closed.code).toBe("TOOLKIT_CLOSED");
    expect(closed.operation).toBe("tools");
    expect(api.MCPToolkitClosedError.isInstance(closed)).toBe(true);
    expect(api.MCPToolNotFoundError.isInstance(closed)).toBe(false);
    const limit = new api.MCPToolSearchError("used up", { code: "SEARCH_LIMIT_REACHED", agent: "a" });
    expect(limit.code).toBe("SEARCH_LIMIT_REACHED");
    expect(limit.agent).toBe("a");
    expect(api.MCPToolSearchError.isInstance(limit)).toBe(true);
    expect(api.MCPToolNotFoundError.isInstance(limit)).toBe(false);
    const unconfirmed = new api.MCPConfirmationError("needs confirmation", {
      code: "CONFIRMATION_REQUIRED",
      identity: "s.t",
      serverName: "s",
      toolName: "t",
      agent: "a",
      callId: "c1",
    });
    expect(unconfirmed.code).toBe("CONFIRMATION_REQUIRED");
    expect(unconfirmed.request).toBeUndefined();
    expect(api.MCPConfirmationError.isInstance(unconfirmed)).toBe(true);
    expect(api.MCPToolExecutionError.isInstance(unconfirmed)).toBe(false);
    // One import for everything a caller may catch: the runtime's own errors and every other package's.
    expect(classes.map((c) => (c as { name: string }).name).sort()).toEqual([
      "MCPApprovalsSnapshotError",
      "MCPCapabilityError",
      "MCPConfigError",
      "MCPConfirmationError",
      "MCPConnectionError",
      "MCPDuplicateToolError",
      "MCPError",
      "MCPInvalidArgumentsError",
      "MCPPermissionDeniedError",
      "MCPRequestError",
      "MCPServerNotFoundError",
      "MCPTimeoutError",
      "MCPToolExecutionError",
      "MCPToolNotFoundError",
      "MCPToolSearchError",
      "MCPToolkitClosedError",
    ]);
    for (const ErrorClass of classes)
      expect(typeof (ErrorClass as { isInstance?: unknown }).isInstance).toBe("function");
    // The same classes as the packages' own: isInstance and instanceof agree across the re-export.
    expect(api.MCPConnectionError).toBe(client.MCPConnectionError);
    expect(api.MCPPermissionDeniedError).toBe(permissions.MCPPermissionDeniedError);
    expect(api.MCPConfigError).toBe(config.MCPConfigError);
  });

  it("exports the library's defaults as named constants", () => {
    expect(api.MAX_MCP_RESULT_CHARS).toBe(8000);
    expect(api.MAX_MCP_TOOL_ROUNDS).toBe(3);
    expect(api.MAX_MODEL_TOOLS).toBe(128);
    expect(api.MCP_TOOL_SEARCH_DEFAULTS).toEqual({
      mode: "auto",
      threshold: { tools: 30, chars: 40_000 },
      alwaysLoad: [],
      maxSearches: 3,
    });
  });
});
