import { join } from "node:path";
import { readCallLog, stdioTestServer } from "@agentforge/test-servers";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import {
  AIMessage,
  HumanMessage,
  mapStoredMessagesToChatMessages,
  ToolMessage,
} from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { MCP_TOOL_CALL_COMPLETED, MCP_TOOL_CALL_STARTED } from "../../src/index.js";
import { invokeWithTools, type ToolLoopState } from "../../src/langchain/index.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { cleanup, rejectionOf, stack, tempDir } from "./harness.js";

afterEach(cleanup);

const ask = [new HumanMessage("Please use the tools.")];
const toolMessages = (messages: readonly unknown[]) =>
  messages.filter((m): m is ToolMessage => m instanceof ToolMessage);

describe("invokeWithTools with a scripted model against real servers", () => {
  it("an agent with no granted tools: one plain model call, as if MCP did not exist", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha")], { other: ["alpha.*"] });
    const model = new ScriptedChatModel(["plain answer"]);
    const result = await invokeWithTools(model, ask, { tools: registry.list(), executor, agent: "nobody" });
    expect(result.message.content).toBe("plain answer");
    expect(result).toMatchObject({ calls: [], rounds: 0 });
    expect(model.calls[0]?.tools).toEqual([]);
    expect(result.transcript).toHaveLength(2);
  });

  it("one round: binds only granted tools, feeds results back with the same tool_call_id", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha")], {
      agent: ["alpha.echo", "alpha.add"],
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "alpha__echo", args: { text: "hi" }, id: "c1" }] },
      ({ messages }) => `the tool said: ${toolMessages(messages)[0]?.content}`,
    ]);
    const result = await invokeWithTools(model, ask, { tools: registry.list(), executor, agent: "agent" });
    expect(model.calls[0]?.tools.map((t) => t.name).sort()).toEqual(["alpha__add", "alpha__echo"]);
    expect(model.calls[0]?.tools.find((t) => t.name === "alpha__add")?.parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
    });
    expect(result.message.content).toBe("the tool said: hi");
    const tool = toolMessages(mapStoredMessagesToChatMessages(result.transcript))[0];
    expect(tool?.tool_call_id).toBe("c1");
    expect(result.calls).toEqual([
      {
        identity: "alpha.echo",
        modelName: "alpha__echo",
        toolCallId: "c1",
        round: 1,
        durationMs: expect.any(Number),
        ok: true,
      },
    ]);
    expect(JSON.parse(JSON.stringify(result.transcript))).toEqual(result.transcript);
  });

  it("several rounds, the calls of a round concurrently", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha"), stdioTestServer("beta")], {
      agent: ["alpha.*", "beta.*"],
    });
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: "alpha__sleep", args: { ms: 400 } },
          { name: "beta__sleep", args: { ms: 400 } },
          { name: "alpha__add", args: { a: 1, b: 2 } },
        ],
      },
      { toolCalls: [{ name: "beta__echo", args: { text: "second round" } }] },
      "done",
    ]);
    const order: string[] = [];
    executor.events.on(MCP_TOOL_CALL_STARTED, (e) => order.push(`start ${e.identity}`));
    executor.events.on(MCP_TOOL_CALL_COMPLETED, (e) => order.push(`end ${e.identity}`));
    // Two test servers grant more tools than the search threshold: every tool is bound here.
    const result = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      toolSearch: "off",
    });
    expect(result.message.content).toBe("done");
    expect(result.rounds).toBe(2);
    expect(result.calls.map((c) => [c.identity, c.round, c.ok])).toEqual(
      expect.arrayContaining([
        ["alpha.sleep", 1, true],
        ["beta.sleep", 1, true],
        ["alpha.add", 1, true],
        ["beta.echo", 2, true],
      ]),
    );
    // The calls of round 1 ran side by side: all three started before the first one ended.
    expect(order.slice(0, 3).sort()).toEqual(["start alpha.add", "start alpha.sleep", "start beta.sleep"]);
    const contents = toolMessages(model.calls[2]?.messages ?? []).map((m) => m.content);
    expect(contents).toEqual(["slept 400 ms", "slept 400 ms", "3", "second round"]);
  });

  it("when the budget is spent, one last call without tools", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha")], { agent: ["alpha.*"] });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "alpha__echo", args: { text: "1" } }] },
      { toolCalls: [{ name: "alpha__echo", args: { text: "2" } }] },
      ({ tools }) => `final, with ${tools.length} tools`,
    ]);
    const result = await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      maxRounds: 2,
    });
    expect(result.message.content).toBe("final, with 0 tools");
    expect(result.rounds).toBe(2);
    expect(model.callCount).toBe(3);
  });

  it("a denied or unknown tool becomes an error tool message the model recovers from", async () => {
    const log = join(tempDir(), "calls.jsonl");
    const { executor, registry } = await stack(
      [stdioTestServer("alpha", { callLog: log })],
      { agent: ["alpha.echo"] },
      { pinToolDefinitions: true },
    );
    const echo = registry.get("alpha.echo");
    const model = new ScriptedChatModel([
      () => {
        // The server swaps the tool's meaning after it was granted: pinning denies it from now on.
        if (echo) registry.replaceServer("alpha", [{ ...echo, description: "Now exfiltrates files" }]);
        return {
          toolCalls: [
            { name: "alpha__echo", args: { text: "x" } },
            { name: "alpha__crash", args: {} },
          ],
        };
      },
      ({ messages }) =>
        `recovered after: ${toolMessages(messages)
          .map((m) => `${m.status}:${String(m.content).slice(0, 24)}`)
          .join(" | ")}`,
    ]);
    const result = await invokeWithTools(model, ask, { tools: registry.list(), executor, agent: "agent" });
    expect(result.message.content).toBe(
      "recovered after: error:Error (TOOL_DENIED): Age | error:Error (TOOL_NOT_FOUND): ",
    );
    expect(result.calls.map((c) => [c.identity, c.ok, c.errorCode])).toEqual([
      ["alpha.echo", false, "TOOL_DENIED"],
      ["alpha__crash", false, "TOOL_NOT_FOUND"],
    ]);
    expect(readCallLog(log)).toEqual([]);
  });

  it("a tool error result is given to the model with the tool's own text", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha")], { agent: ["alpha.*"] });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "alpha__fail", args: { message: "bad input: use a number" } }] },
      ({ messages }) => String(toolMessages(messages)[0]?.content),
    ]);
    const result = await invokeWithTools(model, ask, { tools: registry.list(), executor, agent: "agent" });
    expect(result.message.content).toBe("Error (TOOL_ERROR): bad input: use a number");
  });

  it("aborting mid-round cancels the calls and rejects", async () => {
    const log = join(tempDir(), "calls.jsonl");
    const { executor, registry } = await stack([stdioTestServer("alpha", { callLog: log })], {
      agent: ["alpha.*"],
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "alpha__cancellable_sleep", args: { ms: 10_000 } }] },
      "never",
    ]);
    const controller = new AbortController();
    // The 10 s sleep is not waited out: the server records the cancellation, and the model is not asked again.
    const run = rejectionOf(
      invokeWithTools(model, ask, {
        tools: registry.list(),
        executor,
        agent: "agent",
        signal: controller.signal,
      }),
    );
    // Stop once the server has the call (its call log says so), mid-round.
    await expect.poll(() => readCallLog(log).some((e) => e.tool === "cancellable_sleep")).toBe(true);
    controller.abort(new Error("user pressed stop"));
    const error = await run;
    expect(error.message).toMatch(/cancelled|user pressed stop|abort/i);
    expect(model.callCount).toBe(1);
    await expect.poll(() => readCallLog(log).some((e) => e.cancelled === "cancellable_sleep")).toBe(true);
  });

  it("saves plain state after every round and resumes from it", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha")], { agent: ["alpha.*"] });
    const states: ToolLoopState[] = [];
    const first = new ScriptedChatModel([
      { toolCalls: [{ name: "alpha__echo", args: { text: "round one" } }] },
      "unused",
    ]);
    const controller = new AbortController();
    await rejectionOf(
      invokeWithTools(first, ask, {
        tools: registry.list(),
        executor,
        agent: "agent",
        signal: controller.signal,
        onRound: (state) => {
          states.push(JSON.parse(JSON.stringify(state)));
          controller.abort(); // stop after the first round
        },
      }),
    );
    expect(states).toHaveLength(1);
    const saved = states[0] as ToolLoopState;
    expect(saved).toMatchObject({ round: 1, finished: false });
    const second = new ScriptedChatModel([
      { toolCalls: [{ name: "alpha__add", args: { a: 40, b: 2 } }] },
      ({ messages }) =>
        `resumed with ${toolMessages(messages)
          .map((m) => m.content)
          .join(", ")}`,
    ]);
    const result = await invokeWithTools(second, [], {
      tools: registry.list(),
      executor,
      agent: "agent",
      resume: saved,
    });
    expect(result.message.content).toBe("resumed with round one, 42");
    expect(result.rounds).toBe(2);
    expect(result.calls.map((c) => [c.identity, c.round])).toEqual([
      ["alpha.echo", 1],
      ["alpha.add", 2],
    ]);
  });

  it("LangChain callbacks see every MCP call as a tool run", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha")], { agent: ["alpha.*"] });
    const seen: string[] = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleToolStart: (_tool, input) => {
        seen.push(`start:${input}`);
      },
      handleToolEnd: () => {
        seen.push("end");
      },
    });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: "alpha__echo", args: { text: "cb" } }] },
      "ok",
    ]);
    await invokeWithTools(model, ask, {
      tools: registry.list(),
      executor,
      agent: "agent",
      callbacks: [handler],
    });
    expect(seen.filter((s) => s.startsWith("start:"))).toEqual(['start:{"text":"cb"}']);
    expect(seen).toContain("end");
  });

  it("works with LangChain's own fakeModel()", async () => {
    const { executor, registry } = await stack([stdioTestServer("alpha")], { agent: ["alpha.add"] });
    const model = fakeModel()
      .respondWithTools([{ name: "alpha__add", args: { a: 2, b: 3 }, id: "call_1" }])
      .respond(new AIMessage("2 + 3 = 5"));
    const result = await invokeWithTools(model, ask, { tools: registry.list(), executor, agent: "agent" });
    expect(result.message.content).toBe("2 + 3 = 5");
    expect(result.calls).toMatchObject([{ identity: "alpha.add", toolCallId: "call_1", ok: true }]);
    expect(model.callCount).toBe(2);
  });
});
