import { describe, expect, it } from "vitest";
import { MCP_TOOL_CALL_STARTED, MCPEventDispatcher, type MCPToolCallEvent } from "./events.js";

const event: MCPToolCallEvent = {
  identity: "s.t",
  serverName: "s",
  toolName: "t",
  agent: "a",
  callId: "1",
  timestamp: new Date(0).toISOString(),
};

describe("MCPEventDispatcher", () => {
  it("delivers typed events, once and on, and unsubscribes", () => {
    const bus = new MCPEventDispatcher();
    const seen: string[] = [];
    const off = bus.on(MCP_TOOL_CALL_STARTED, (e) => seen.push(`on:${e.callId}`));
    bus.once(MCP_TOOL_CALL_STARTED, (e) => seen.push(`once:${e.callId}`));
    bus.emit(MCP_TOOL_CALL_STARTED, event);
    bus.emit(MCP_TOOL_CALL_STARTED, { ...event, callId: "2" });
    off();
    bus.emit(MCP_TOOL_CALL_STARTED, { ...event, callId: "3" });
    expect(seen).toEqual(["on:1", "once:1", "on:2"]);
    expect(bus.listenerCount(MCP_TOOL_CALL_STARTED)).toBe(0);
  });

  it("a throwing or rejecting listener never breaks the emitter nor the other listeners", async () => {
    const errors: unknown[] = [];
    const bus = new MCPEventDispatcher({ onListenerError: (error) => errors.push(error) });
    const seen: string[] = [];
    bus.on(MCP_TOOL_CALL_STARTED, () => {
      throw new Error("sync boom");
    });
    bus.on(MCP_TOOL_CALL_STARTED, async () => {
      throw new Error("async boom");
    });
    bus.on(MCP_TOOL_CALL_STARTED, (e) => seen.push(e.callId));
    expect(() => bus.emit(MCP_TOOL_CALL_STARTED, event)).not.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toEqual(["1"]);
    expect(errors.map((e) => (e as Error).message)).toEqual(["sync boom", "async boom"]);
  });
});
