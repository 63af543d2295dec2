import { expectTypeOf, test } from "vitest";
import type { DiscoveredTool } from "./discover-tools.js";
import type { MCPClientErrorCode, MCPConnectionError } from "./errors.js";
import {
  type CallToolResult,
  MCPClientManager,
  type MCPConnectionKind,
  type MCPServerHealth,
  type MCPToolsChangedEvent,
} from "./index.js";

test("events are typed by name", () => {
  const manager = new MCPClientManager([]);
  manager.on("toolsChanged", (event) => {
    expectTypeOf(event).toEqualTypeOf<MCPToolsChangedEvent>();
    expectTypeOf(event.tools).toEqualTypeOf<DiscoveredTool[]>();
  });
  manager.on("connected", (event) => expectTypeOf(event.transport).toEqualTypeOf<MCPConnectionKind>());
  manager.on("connectionFailed", (event) => expectTypeOf(event.error).toEqualTypeOf<MCPConnectionError>());
  // @ts-expect-error: not an event of the manager
  manager.on("toolChanged", () => {});
});

test("calls and checks return plain typed data", () => {
  const manager = new MCPClientManager([]);
  expectTypeOf(manager.callTool("s", "t", { a: 1 })).resolves.toEqualTypeOf<CallToolResult>();
  expectTypeOf(manager.healthCheck("s")).resolves.toEqualTypeOf<MCPServerHealth>();
  expectTypeOf(manager.listTools("s")).resolves.toEqualTypeOf<DiscoveredTool[]>();
  // @ts-expect-error: arguments are an object, not a list
  manager.callTool("s", "t", [1, 2]);
  expectTypeOf<"TOOL_TIMEOUT">().toExtend<MCPClientErrorCode>();
  expectTypeOf<"NOT_A_CODE">().not.toExtend<MCPClientErrorCode>();
});
