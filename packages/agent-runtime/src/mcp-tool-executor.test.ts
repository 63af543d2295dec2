// The executor's progress relay, with an in-process client (our own `MCPToolCallClient` interface) that
// plays a server's progress notifications, and fake clocks: no process, no I/O, no timing.
import type { MCPCallToolOptions } from "@agentforge/mcp-client";
import { type MCPPermissionGrants, MCPPermissionPolicy, MCPToolRegistry } from "@agentforge/mcp-permissions";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  MCP_PROMPT_GET,
  MCP_RESOURCE_READ,
  MCP_TOOL_CALL_COMPLETED,
  MCP_TOOL_CALL_PROGRESS,
  type MCPAccessEvent,
  type MCPToolProgressEvent,
} from "./events.js";
import { MCP_PROGRESS_INTERVAL_MS } from "./limits.js";
import {
  type MCPResourceClient,
  type MCPToolCallClient,
  MCPToolExecutor,
  type MCPToolProgress,
} from "./mcp-tool-executor.js";

type Notify = (onprogress: NonNullable<MCPCallToolOptions["onprogress"]>) => void;

function executorWith(notify: Notify) {
  const seen: MCPCallToolOptions[] = [];
  const client: MCPToolCallClient = {
    callTool: (async (_server: string, _tool: string, _args: unknown, options: MCPCallToolOptions = {}) => {
      seen.push(options);
      if (options.onprogress) notify(options.onprogress);
      return { content: [{ type: "text", text: "done" }] };
    }) as MCPToolCallClient["callTool"],
    getConfig: (() => ({ transport: "stdio" })) as unknown as MCPToolCallClient["getConfig"],
  };
  const registry = new MCPToolRegistry();
  registry.register("srv", [
    { identity: "srv.work", serverName: "srv", toolName: "work", inputSchema: { type: "object" } },
  ]);
  const policy = new MCPPermissionPolicy({ agent: ["srv.*"] });
  return { executor: new MCPToolExecutor({ clientManager: client, registry, policy }), seen };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["performance", "Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("MCPToolExecutor progress", () => {
  it("asks for no progress when nobody listens (the call options are what they were)", async () => {
    const { executor, seen } = executorWith(() => undefined);
    await executor.execute("agent", "srv.work", {});
    const signal = new AbortController().signal;
    await executor.execute("agent", "srv.work", {}, { signal });
    expect(seen).toEqual([{}, { signal }]);
  });

  it("coalesces a flood: only increasing values, at most one per interval, the total once", async () => {
    const { executor, seen } = executorWith((onprogress) => {
      for (let i = 1; i <= 100_000; i++) {
        onprogress({ progress: i, total: 200_000, message: `secret ${i}` });
        if (i % 10_000 === 0) vi.advanceTimersByTime(MCP_PROGRESS_INTERVAL_MS); // ten intervals in all
      }
      for (let i = 0; i < 1000; i++) onprogress({ progress: 5, total: 200_000 }); // going backwards
      onprogress({ progress: 200_000, total: 200_000 }); // reaches the total: always passed on
      onprogress({ progress: 200_001, total: 200_000 }); // beyond it, within the interval: dropped
      for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, "300000", null]) {
        onprogress({ progress: bad as number });
      }
    });
    const got: MCPToolProgress[] = [];
    const events: MCPToolProgressEvent[] = [];
    executor.events.on(MCP_TOOL_CALL_PROGRESS, (e) => events.push(e));
    const result = await executor.execute("agent", "srv.work", {}, { onProgress: (p) => got.push(p) });

    expect(seen[0]?.onprogress).toBeTypeOf("function");
    // First value, then one after each of the ten interval steps, then the total.
    expect(got.map((p) => p.progress)).toEqual([
      1, 10_001, 20_001, 30_001, 40_001, 50_001, 60_001, 70_001, 80_001, 90_001, 200_000,
    ]);
    expect(got[0]).toEqual({ identity: "srv.work", callId: result.callId, progress: 1, total: 200_000 });
    expect(JSON.stringify(got)).not.toContain("secret");
    expect(events).toHaveLength(got.length);
    expect(events[0]).toEqual({
      type: "MCP_TOOL_CALL_PROGRESS",
      identity: "srv.work",
      serverName: "srv",
      toolName: "work",
      agent: "agent",
      callId: result.callId,
      timestamp: expect.any(String),
      progress: 1,
      total: 200_000,
    });
    expect(JSON.stringify(events)).not.toContain("secret");
  });

  it("drops a total that is not a finite positive number, and keeps reporting without one", async () => {
    const { executor } = executorWith((onprogress) => {
      onprogress({ progress: 1, total: -3 });
      vi.advanceTimersByTime(MCP_PROGRESS_INTERVAL_MS);
      onprogress({ progress: 2, total: Number.NaN });
      vi.advanceTimersByTime(MCP_PROGRESS_INTERVAL_MS);
      onprogress({ progress: 2.5 });
    });
    const got: MCPToolProgress[] = [];
    await executor.execute("agent", "srv.work", {}, { onProgress: (p) => got.push(p) });
    expect(got.map((p) => [p.progress, "total" in p])).toEqual([
      [1, false],
      [2, false],
      [2.5, false],
    ]);
  });

  it("events alone turn progress on; a listener that throws or rejects never breaks the call", async () => {
    const { executor, seen } = executorWith((onprogress) => {
      onprogress({ progress: 1, total: 2 });
      onprogress({ progress: 2, total: 2 });
    });
    const events: number[] = [];
    executor.events.on(MCP_TOOL_CALL_PROGRESS, (e) => {
      events.push(e.progress);
      throw new Error("listener bug");
    });
    const completed: string[] = [];
    executor.events.on(MCP_TOOL_CALL_COMPLETED, (e) => completed.push(e.outcome ?? ""));
    const result = await executor.execute(
      "agent",
      "srv.work",
      {},
      {
        onProgress: () => {
          throw new Error("caller bug");
        },
      },
    );
    await executor.execute(
      "agent",
      "srv.work",
      {},
      { onProgress: async () => Promise.reject(new Error("x")) },
    );
    expect(result.text).toBe("done");
    expect(typeof seen[0]?.onprogress).toBe("function");
    expect(events).toEqual([1, 2, 1, 2]);
    expect(completed).toEqual(["ok", "ok"]);
  });
});

describe("MCPToolExecutor resources and prompts", () => {
  function withClient(client: Partial<MCPToolCallClient & MCPResourceClient>, grants: MCPPermissionGrants) {
    const registry = new MCPToolRegistry();
    const policy = new MCPPermissionPolicy(grants);
    const executor = new MCPToolExecutor({
      clientManager: client as MCPToolCallClient & MCPResourceClient,
      registry,
      policy,
    });
    const events: MCPAccessEvent[] = [];
    executor.events.on(MCP_RESOURCE_READ, (e) => events.push(e));
    executor.events.on(MCP_PROMPT_GET, (e) => events.push(e));
    return { executor, events };
  }

  it("caps and cleans the text; the client is asked only after the policy said yes", async () => {
    const asked: string[] = [];
    const { executor, events } = withClient(
      {
        readResource: (async (server: string, uri: string) => {
          asked.push(`${server} ${uri}`);
          return {
            serverName: server,
            uri,
            contents: [{ uri, text: `\u001b[31m${"x".repeat(9000)}` }],
            truncated: false,
            skipped: 0,
          };
        }) as MCPResourceClient["readResource"],
      },
      { reader: { allow: [], resources: ["srv:file:///ok/*"] } },
    );
    const read = await executor.readResource("reader", "srv", "file:///ok/a.txt");
    expect(read.text.startsWith("[resource file:///ok/a.txt]\nxxx")).toBe(true);
    expect(read.text.endsWith("characters truncated]")).toBe(true);
    expect(read).toMatchObject({
      truncated: true,
      originalLength: "[resource file:///ok/a.txt]\n".length + 9000,
    });
    await expect(executor.readResource("reader", "srv", "file:///other/b.txt")).rejects.toMatchObject({
      code: "TOOL_DENIED",
    });
    await expect(executor.readResource("nobody", "srv", "file:///ok/a.txt")).rejects.toMatchObject({
      code: "TOOL_DENIED",
    });
    expect(asked).toEqual(["srv file:///ok/a.txt"]);
    expect(events.map((e) => e.outcome)).toEqual(["ok", "denied", "denied"]);
  });

  it("resources and prompts a confirm pattern grants are refused, never read without confirmation", async () => {
    const asked: string[] = [];
    const { executor, events } = withClient(
      {
        readResource: (async (server: string, uri: string) => {
          asked.push(uri);
          return { serverName: server, uri, contents: [{ uri, text: "x" }], truncated: false, skipped: 0 };
        }) as MCPResourceClient["readResource"],
        getPrompt: (async () => {
          asked.push("prompt");
          return { messages: [] };
        }) as unknown as MCPResourceClient["getPrompt"],
      },
      {
        reader: {
          allow: [],
          resources: { allow: ["srv:file:///ok/*"], confirm: ["srv:file:///ok/secret/*"] },
          prompts: { confirm: ["srv.release"] },
        },
      },
    );
    await expect(executor.readResource("reader", "srv", "file:///ok/secret/k")).rejects.toMatchObject({
      code: "TOOL_DENIED",
      message: expect.stringMatching(/cannot be confirmed yet/),
    });
    await expect(executor.getPrompt("reader", "srv", "release")).rejects.toMatchObject({
      code: "TOOL_DENIED",
    });
    await executor.readResource("reader", "srv", "file:///ok/a");
    expect(asked).toEqual(["file:///ok/a"]);
    expect(events.map((e) => e.outcome)).toEqual(["denied", "denied", "ok"]);
  });

  it("a client without the method fails cleanly; usePolicy takes only a whole policy", async () => {
    const { executor, events } = withClient(
      {},
      { reader: { allow: [], resources: ["srv:*"], prompts: ["srv.*"] } },
    );
    await expect(executor.readResource("reader", "srv", "file:///a")).rejects.toThrow(/has no readResource/);
    await expect(executor.getPrompt("reader", "srv", "p")).rejects.toThrow(/has no getPrompt/);
    const partial = {
      decide: executor.policy.decide.bind(executor.policy),
      allowedTools: executor.policy.allowedTools.bind(executor.policy),
    };
    expect(() => executor.usePolicy(partial as unknown as MCPPermissionPolicy)).toThrow(
      /expected an MCPPermissionPolicy/,
    );
    expect(events.map((e) => [e.outcome, e.errorCode])).toEqual([
      ["failed", "FAILED"],
      ["failed", "FAILED"],
    ]);
  });
});
