import { MCPError } from "@agentforge/mcp-config";
import { describe, expect, it } from "vitest";
import { MCPConnectionError, MCPRequestError, MCPServerNotFoundError, MCPTimeoutError } from "./errors.js";

describe("client errors", () => {
  it("extend MCPError, are branded and keep remote codes apart from code", () => {
    const error = new MCPConnectionError("401", {
      code: "HTTP_UNAUTHORIZED",
      serverName: "gh",
      httpStatus: 401,
    });
    expect(MCPError.isInstance(error)).toBe(true);
    expect(MCPConnectionError.isInstance(error)).toBe(true);
    expect(MCPTimeoutError.isInstance(error)).toBe(false);
    expect(error.name).toBe("MCPConnectionError");
    expect(error.code).toBe("HTTP_UNAUTHORIZED");
    expect(error.httpStatus).toBe(401);
    const rpc = new MCPRequestError("x", { code: "RPC_ERROR", rpcCode: -32602 });
    expect(rpc.rpcCode).toBe(-32602);
    expect(rpc.code).toBe("RPC_ERROR");
  });

  it("serialise their context with toJSON", () => {
    const error = new MCPTimeoutError("slow", {
      code: "TOOL_TIMEOUT",
      serverName: "s",
      toolName: "t",
      timeoutMs: 1000,
    });
    expect(error.toJSON()).toMatchObject({
      name: "MCPTimeoutError",
      code: "TOOL_TIMEOUT",
      serverName: "s",
      toolName: "t",
      timeoutMs: 1000,
    });
    const notFound = new MCPServerNotFoundError("no", { code: "SERVER_DISABLED", serverName: "x" });
    expect(notFound.toJSON()).toMatchObject({ code: "SERVER_DISABLED", serverName: "x" });
  });
});
