// Progress on the governed path against real stdio servers: a hostile server flooding progress
// notifications costs listeners a bounded number of calls, and progress flows through the LangChain loop.
import { stdioTestServer } from "@agentforge/test-servers";
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { MCP_PROGRESS_INTERVAL_MS, MCP_TOOL_CALL_PROGRESS, type MCPToolProgress } from "../../src/index.js";
import { invokeWithTools } from "../../src/langchain/index.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { cleanup, stack } from "./harness.js";

afterEach(cleanup);

describe("progress through the executor", () => {
  it("a flood of 10000 notifications reaches listeners coalesced: increasing, bounded by the interval", async () => {
    const { executor } = await stack([stdioTestServer("hostile", { hostile: true }, { toolTimeout: 240 })], {
      agent: ["hostile.*"],
    });
    const got: MCPToolProgress[] = [];
    let events = 0;
    executor.events.on(MCP_TOOL_CALL_PROGRESS, () => {
      events++;
    });
    const started = performance.now();
    const result = await executor.execute(
      "agent",
      "hostile.flood",
      { count: 10_000 },
      { onProgress: (p) => got.push(p) },
    );
    const elapsed = performance.now() - started;
    expect(result.text).toBe("flooded 10000");
    const values = got.map((p) => p.progress);
    // Never more than one per interval (plus the first and the one reaching the total) — counted, not timed.
    expect(got.length).toBeLessThanOrEqual(2 + Math.ceil(elapsed / MCP_PROGRESS_INTERVAL_MS));
    expect(got.length).toBeLessThan(10_000);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(got.at(-1)).toEqual({
      identity: "hostile.flood",
      callId: result.callId,
      progress: 10_000,
      total: 10_000,
    });
    expect(events).toBe(got.length);
    // A busy machine (load 20 on 2 cores) took over 30 s for 20,000 notifications: the budget is generous.
  }, 300_000);

  it("the server's progress message never reaches a listener", async () => {
    const { executor, recorded } = await stack([stdioTestServer("alpha")], { agent: ["alpha.*"] });
    const lines: string[] = [];
    executor.events.on(MCP_TOOL_CALL_PROGRESS, (e) => {
      lines.push(JSON.stringify(e));
    });
    const got: MCPToolProgress[] = [];
    await executor.execute(
      "agent",
      "alpha.progress",
      { steps: 3, intervalMs: 150 },
      { onProgress: (p) => got.push(p) },
    );
    expect(got.at(-1)).toMatchObject({ progress: 3, total: 3 });
    expect(lines.length).toBe(got.length);
    for (const line of [...lines, ...got.map((p) => JSON.stringify(p)), ...recorded.lines])
      expect(line).not.toContain("step ");
  });
});

describe("progress through the LangChain loop", () => {
  it("invokeWithTools passes onProgress to each call", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha")], { agent: ["alpha.*"] });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "alpha__progress", args: { steps: 2, intervalMs: 150 } }] },
      "done",
    ]);
    const got: MCPToolProgress[] = [];
    const result = await invokeWithTools(model, [new HumanMessage("go")], {
      tools: registry.list(),
      executor,
      agent: "agent",
      onProgress: (p) => got.push(p),
    });
    expect(result.message.content).toBe("done");
    expect(got.length).toBeGreaterThanOrEqual(1);
    expect(got.at(-1)).toMatchObject({ identity: "alpha.progress", progress: 2, total: 2 });
  });
});
