import { describe, expect, expectTypeOf, it } from "vitest";
import {
  MCP_INTERNAL_ERROR,
  MCP_TOOL_CALL_FAILED,
  MCP_TOOL_CALL_STARTED,
  MCPEventDispatcher,
  type MCPInternalErrorEvent,
  type MCPRuntimeEvent,
  type MCPToolCallStartedEvent,
} from "./events.js";

const event: MCPToolCallStartedEvent = {
  type: MCP_TOOL_CALL_STARTED,
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
    expect(seen).toEqual(["1"]);
    await expect.poll(() => errors.length).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(["sync boom", "async boom"]);
  });

  it("by default a failing listener is reported as MCP_INTERNAL_ERROR (LISTENER_FAILED)", () => {
    const bus = new MCPEventDispatcher();
    const reported: MCPInternalErrorEvent[] = [];
    bus.on(MCP_INTERNAL_ERROR, (e) => reported.push(e));
    bus.on(MCP_TOOL_CALL_STARTED, () => {
      throw new Error("boom");
    });
    bus.emit(MCP_TOOL_CALL_STARTED, event);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({
      type: MCP_INTERNAL_ERROR,
      code: "LISTENER_FAILED",
      event: MCP_TOOL_CALL_STARTED,
      message: expect.stringMatching(/^A listener of MCP_TOOL_CALL_STARTED failed \(boom\)/),
    });
    expect(reported[0]?.error).toBeInstanceOf(Error);
    expect(String(reported[0]?.error)).toBe("Error: boom");
  });

  it("types each kind: a FAILED listener gets a required errorCode; every event narrows by type", () => {
    const bus = new MCPEventDispatcher();
    bus.on(MCP_TOOL_CALL_FAILED, (e) => {
      expectTypeOf(e.errorCode).toEqualTypeOf<import("./events.js").MCPEventErrorCode>();
      expectTypeOf(e.message).toBeString();
    });
    const describe = (e: MCPRuntimeEvent): string => (e.type === MCP_TOOL_CALL_FAILED ? e.errorCode : e.type);
    expect(describe(event)).toBe(MCP_TOOL_CALL_STARTED);
  });
});
