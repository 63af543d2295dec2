import { expectTypeOf, test } from "vitest";
import type { DiscoveredTool } from "./discover-tools.js";
import type { MCPClientErrorCode, MCPConnectionError } from "./errors.js";
import {
  type CallToolResult,
  MCPClientManager,
  type MCPClientManagerEventName,
  type MCPConnectionKind,
  type MCPElicitationFieldSchema,
  type MCPElicitationResult,
  type MCPGetPromptResult,
  type MCPReadResourceResult,
  type MCPResourcePage,
  type MCPServerHealth,
  type MCPToolsChangedEvent,
  requiresTaskExecution,
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

test("on returns the function that unsubscribes; nothing outside can emit", () => {
  const manager = new MCPClientManager([]);
  const unsubscribe = manager.on("healthChanged", (event) => {
    expectTypeOf(event.health).toEqualTypeOf<MCPServerHealth>();
  });
  expectTypeOf(unsubscribe).toEqualTypeOf<() => void>();
  // A listener may be async: its rejection is contained like a throw.
  manager.on("disconnected", async () => {});
  // @ts-expect-error: the payload is the event's own type
  manager.on("connected", (event: MCPToolsChangedEvent) => event);
  // @ts-expect-error: the manager is not an EventEmitter
  manager.emit("connected", {});
  // @ts-expect-error: once is gone; unsubscribe inside the listener instead
  manager.once("connected", () => {});
  // @ts-expect-error: off is gone; call the function on returns
  manager.off("connected", () => {});
  expectTypeOf(manager.on).parameter(0).toEqualTypeOf<MCPClientManagerEventName>();
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

test("resources, prompts and elicitation are typed plain data", () => {
  const manager = new MCPClientManager([], {
    elicitation: async (request, context) => {
      expectTypeOf(context.signal).toEqualTypeOf<AbortSignal>();
      if (request.mode === "url") {
        expectTypeOf(request.url).toEqualTypeOf<string>();
        return { action: "accept" };
      }
      expectTypeOf(request.requestedSchema.properties).toEqualTypeOf<
        Record<string, MCPElicitationFieldSchema>
      >();
      return { action: "accept", content: { name: "Ada", tags: ["a"], ok: true, n: 1 } };
    },
  });
  // @ts-expect-error: content values are strings, numbers, booleans or string arrays
  const bad: MCPElicitationResult = { action: "accept", content: { nested: { a: 1 } } };
  void bad;
  expectTypeOf(manager.listResources("s", { cursor: "c" })).resolves.toEqualTypeOf<MCPResourcePage>();
  expectTypeOf(manager.readResource("s", "file:///x")).resolves.toEqualTypeOf<MCPReadResourceResult>();
  expectTypeOf(manager.getPrompt("s", "p", { city: "Lisbon" })).resolves.toEqualTypeOf<MCPGetPromptResult>();
  // @ts-expect-error: prompt arguments are strings
  manager.getPrompt("s", "p", { count: 1 });
  expectTypeOf<"CAPABILITY_NOT_SUPPORTED">().toExtend<MCPClientErrorCode>();
  expectTypeOf(requiresTaskExecution).parameter(0).toExtend<Pick<DiscoveredTool, "execution">>();
});
